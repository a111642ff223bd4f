package dev.tandem.slurm.fake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.HttpSlurmTransport;
import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.JobSubmission.Exclusivity;
import dev.tandem.slurm.Jwt;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.fake.FakeSlurmrestd.NodeSpec;
import dev.tandem.slurm.spec.OpenApiSpec;
import dev.tandem.slurm.spec.SpecCheckedTransport;
import dev.tandem.slurm.spec.SpecOperations;
import dev.tandem.slurm.testing.Await;
import dev.tandem.slurm.v0044.SlurmClientV0044;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fake's scheduler and node changes beyond what the contract suite covers (which real Slurm
 * would need special set-ups for): first-fit over capacity, whole-node jobs, CANCEL-mode
 * preemption, DOWN requeuing or failing jobs, busy dynamic node deletion, delayed registration.
 */
class FakeSchedulerTest {
  private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();
  private FakeSlurmrestd fake;
  private SlurmClient client;

  @BeforeEach
  void start() {
    fake =
        FakeSlurmrestd.start(
            FakeSlurmrestd.Options.defaults(KEY).withRegistrationDelay(Duration.ofMillis(300)),
            List.of(FakePartition.all("low", 1), FakePartition.all("high", 10)),
            List.of(
                new NodeSpec("a", 4, 4000, List.of(), "gpu:2"),
                new NodeSpec("b", 4, 4000, List.of(), "")));
    Instant now = Instant.now();
    String token = Jwt.mintHs256(KEY, "root", now, now.plusSeconds(3600));
    SlurmClientConfig cfg =
        SlurmClientConfig.fromEnv(
            Map.of("SLURM_REST_URL", fake.url().toString(), "SLURM_JWT", token));
    client =
        new SlurmClientV0044(
            new SpecCheckedTransport(
                new HttpSlurmTransport(cfg), new SpecOperations(OpenApiSpec.load("v0.0.44"))));
  }

  @AfterEach
  void stop() {
    client.close();
    fake.close();
  }

  private long submit(String partition, int cpus, Exclusivity ex) {
    return client.submit(
        JobSubmission.builder("t-" + partition)
            .partition(partition)
            .nodeCount(1)
            .cpusPerNode(cpus)
            .exclusivity(ex)
            .build());
  }

  private SlurmJob await(long id, String state) {
    return Await.until(
        "job " + id + " " + state,
        Duration.ofSeconds(30),
        () -> client.getJob(id),
        j -> state.equals(j.state()));
  }

  @Test
  void firstFitFillsNodesInOrderAndWholeNodeJobsWaitForAnEmptyNode() {
    long j1 = submit("low", 3, Exclusivity.NONE);
    long j2 = submit("low", 3, Exclusivity.NONE);
    long j3 = submit("low", 1, Exclusivity.NONE);
    assertEquals(List.of("a"), await(j1, "RUNNING").nodeList());
    assertEquals(List.of("b"), await(j2, "RUNNING").nodeList());
    assertEquals(List.of("a"), await(j3, "RUNNING").nodeList(), "first fit: a has 1 CPU left");
    SlurmNode a = client.getNode("a");
    assertEquals("allocated", a.state());
    assertEquals(4, a.allocCpus());
    assertEquals("mixed", client.getNode("b").state());

    long whole = submit("low", 1, Exclusivity.EXCLUSIVE);
    assertEquals("Resources", await(whole, "PENDING").stateReason());
    client.cancel(j2, null);
    assertEquals(List.of("b"), await(whole, "RUNNING").nodeList());
    assertEquals("allocated", client.getNode("b").state());
  }

  @Test
  void aHighQosJobPreemptsOneNormalJobWhichIsRequeued() {
    long low = submit("low", 4, Exclusivity.NONE);
    long low2 = submit("low", 4, Exclusivity.NONE);
    await(low, "RUNNING");
    await(low2, "RUNNING");
    long same = submit("high", 4, Exclusivity.NONE);
    assertEquals("Resources", await(same, "PENDING").stateReason(), "normal never preempts normal");
    client.cancel(same, null);
    long high =
        client.submit(
            JobSubmission.builder("t-high").partition("low").cpusPerNode(4).qos("high").build());
    SlurmJob h = await(high, "RUNNING");
    long victim = h.nodeList().equals(List.of("a")) ? low : low2;
    SlurmJob v =
        Await.until(
            "job " + victim + " requeued",
            Duration.ofSeconds(30),
            () -> client.getJob(victim),
            j -> j.pending() && j.restartCount() == 1);
    assertTrue(v.preemptTime() != null, v.toString());
    assertEquals("RUNNING", client.getJob(victim == low ? low2 : low).state(), "one node only");
  }

  @Test
  void downNodeRequeuesRequeueableJobsAndFailsTheOthers() {
    long requeueable = submit("low", 2, Exclusivity.NONE);
    long fixed =
        client.submit(
            JobSubmission.builder("nr")
                .partition("low")
                .nodeList(List.of("a"))
                .cpusPerNode(2)
                .noRequeue(true)
                .build());
    await(requeueable, "RUNNING");
    await(fixed, "RUNNING");
    client.down("a", "tandem:test: down");
    assertEquals("NODE_FAIL", await(fixed, "NODE_FAIL").state());
    // Held for FakeScheduler.REQUEUE_HOLD (reason BeginTime), then started on the other node.
    assertEquals("BeginTime", await(requeueable, "PENDING").stateReason());
    SlurmJob again = await(requeueable, "RUNNING");
    assertEquals(List.of("b"), again.nodeList(), "requeued and started elsewhere");
    assertEquals(1, again.restartCount());
  }

  @Test
  void jobForMoreNodesThanExistWaitsUntilTheyJoin() {
    long id =
        client.submit(
            JobSubmission.builder("wide")
                .partition("low")
                .nodeCount(3)
                .cpusPerNode(2)
                .gresPerNode("gpu:1")
                .build());
    SlurmJob waiting = await(id, "PENDING");
    assertEquals("PartitionNodeLimit", waiting.stateReason(), "2 nodes exist, 3 are asked for");
    assertEquals(new SlurmJob.Request(3, 2, 0, "gpu:1", null), waiting.request());
    // A third node makes the count possible, not the fit: b has no GPU.
    fake.registerNode("d2", 4, 4000, List.of(), "gpu:1");
    Await.until(
        "job " + id + " waiting for Resources",
        Duration.ofSeconds(10),
        () -> client.getJob(id),
        j -> "Resources".equals(j.stateReason()));
    fake.registerNode("d3", 4, 4000, List.of(), "gpu:1");
    SlurmJob running = await(id, "RUNNING");
    assertEquals(3, running.nodeList().size(), running.nodes());
    assertEquals(new SlurmJob.Request(3, 2, 0, "gpu:1", null), running.request());
  }

  @Test
  void dynamicNodeRegistersAfterTheDelayAndIsDeletableOnlyWhenIdle() {
    fake.registerNode("d1", 8, 16000, List.of("h100"), "gpu:h100:8");
    assertTrue(!fake.knows("d1"), "registration waits for the configured delay");
    Await.until("d1 registered", Duration.ofSeconds(10), () -> fake.knows("d1"), k -> k);
    SlurmNode d1 = client.getNode("d1");
    assertTrue(d1.hasFlag("DYNAMIC_NORM"), d1.toString());
    assertEquals(List.of("h100"), d1.features());
    long id =
        client.submit(
            JobSubmission.builder("g")
                .partition("low")
                .nodeCount(1)
                .gresPerNode("gpu:h100:8")
                .build());
    assertEquals(List.of("d1"), await(id, "RUNNING").nodeList());
    SlurmRejectedException busy =
        assertThrows(SlurmRejectedException.class, () -> client.deleteNode("d1"));
    assertEquals(2016, busy.errorNumber());
    client.cancel(id, null);
    await(id, "CANCELLED");
    client.deleteNode("d1");
    assertTrue(!fake.knows("d1"));
  }
}
