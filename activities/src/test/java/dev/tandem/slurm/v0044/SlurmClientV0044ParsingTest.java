package dev.tandem.slurm.v0044;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.testing.FakeSlurmTransport;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** 25.11 answers (fixtures that validate against v0.0.44) parsed into version-neutral records. */
class SlurmClientV0044ParsingTest extends V0044AnswersTestBase {
  static final Instant T0 = Instant.ofEpochSecond(1763700000L);

  private Map<String, SlurmNode> nodes() {
    fake.onResource("GET", P + "/nodes/", 200, P + "/nodes.json");
    Listing<SlurmNode> l = client.listNodes(null);
    assertTrue(l.changed());
    assertEquals(T0, l.updateTime());
    return l.items().stream().collect(Collectors.toMap(SlurmNode::name, Function.identity()));
  }

  @Test
  void idleNodeDropsTheReasonThatUndrainLeftBehind() {
    SlurmNode n = nodes().get("gpu-a-0");
    assertEquals("idle", n.state());
    assertEquals(Set.of(), n.flags());
    assertFalse(n.drainFlag());
    assertNull(n.reason(), "25.11 keeps the text after UNDRAIN; it is not a live reason");
    assertNull(n.reasonSetBy());
    assertEquals(64, n.cpus());
    assertEquals(0, n.allocCpus());
    assertEquals(515000L, n.realMemoryMb());
    assertEquals("gpu:h100:8(S:0-1)", n.gres());
    assertEquals(List.of("gpu", "all"), n.partitions());
    assertEquals(List.of("h100", "ib"), n.features());
    assertEquals("gpu-a-0.slurm.tandem.svc", n.address());
    assertEquals("gpu-a-0", n.hostname());
    assertEquals(T0.minusSeconds(86400), n.slurmdStartTime());
    assertEquals(T0.minusSeconds(90000), n.bootTime());
    assertEquals("25.11.7", n.slurmdVersion());
  }

  @Test
  void drainedNodeKeepsReasonAuthorAndTime() {
    SlurmNode n = nodes().get("gpu-a-1");
    assertEquals("idle", n.state());
    assertEquals(Set.of("DRAIN"), n.flags());
    assertTrue(n.drainFlag());
    assertEquals("tandem:update: image v2", n.reason());
    assertEquals("slurm", n.reasonSetBy());
    assertEquals(T0.minusSeconds(300), n.reasonChangedAt());
  }

  @Test
  void downNotRespondingNode() {
    SlurmNode n = nodes().get("gpu-a-2");
    assertEquals("down", n.state());
    assertTrue(n.down());
    assertTrue(n.notResponding());
    assertEquals("Not responding", n.reason());
  }

  @Test
  void mixedDrainingDynamicAndFutureNodes() {
    Map<String, SlurmNode> all = nodes();
    SlurmNode mixed = all.get("gpu-a-3");
    assertEquals("mixed", mixed.state());
    assertEquals(16, mixed.allocCpus());
    assertEquals("gpu:h100:2(IDX:0-1)", mixed.gresUsed());
    SlurmNode draining = all.get("gpu-a-4");
    assertEquals("allocated", draining.state());
    assertEquals(Set.of("DRAIN", "DYNAMIC_NORM"), draining.flags());
    assertEquals("xid 79 on gpu 3", draining.reason());
    assertEquals(List.of("gpu"), draining.partitions());
    assertEquals(List.of(), draining.features());
    SlurmNode future = all.get("cpu-b-0");
    assertTrue(future.future());
    assertNull(future.slurmdStartTime(), "0 means never started");
    assertNull(future.slurmdVersion());
    assertEquals("", future.gres());
    assertEquals(6, all.size());
  }

  @Test
  void getNodeSendsRepeatedFlagsAndReturnsThatNode() {
    fake.onResource("GET", P + "/node/gpu-a-1", 200, P + "/node-drained.json");
    SlurmNode n = client.getNode("gpu-a-1");
    assertTrue(n.drainFlag());
    assertEquals(List.of("ALL", "DETAIL", "MIXED", "FUTURE"), fake.last().query().get("flags"));
  }

  private Map<Long, SlurmJob> jobs() {
    fake.onResource("GET", P + "/jobs/", 200, P + "/jobs.json");
    Listing<SlurmJob> l = client.listJobs(null);
    assertTrue(l.changed());
    assertEquals(T0, l.updateTime());
    assertEquals(Map.of(), fake.last().query(), "a full listing sends no update_time");
    return l.items().stream().collect(Collectors.toMap(SlurmJob::id, Function.identity()));
  }

  @Test
  void pendingJobHidesTheEstimatedStart() {
    // 25.11 sends "job_resources": null for a job without an allocation, as jobs.json does.
    assertTrue(
        FakeSlurmTransport.resource(P + "/jobs.json").contains("\"job_resources\": null"),
        "the fixture carries the real server's null");
    SlurmJob j = jobs().get(101L);
    assertEquals("PENDING", j.state());
    assertTrue(j.pending());
    assertEquals(Set.of(), j.stateFlags());
    assertEquals("Resources", j.stateReason());
    assertEquals("", j.nodes());
    assertEquals(List.of(), j.nodeList());
    assertNull(j.startTime(), "a pending job's start_time is a forecast");
    assertNull(j.endTime());
    assertEquals(T0.minusSeconds(900), j.submitTime());
    assertEquals(60L, j.timeLimitMinutes());
    assertNull(j.exitCode());
    assertEquals("tandem:ml/trainer-0", j.name());
    assertEquals("schedule/ml/trainer-0/6f1c", j.comment());
    assertEquals("gpu", j.partition());
    assertEquals("ml", j.account());
    assertEquals("normal", j.qos());
    assertEquals("tandem", j.userName());
  }

  @Test
  void jobsSayWhatTheyAskFor() {
    Map<Long, SlurmJob> all = jobs();
    // node_count, minimum_cpus_per_node and memory_per_node are no-val structs, tres_per_node
    // "gres/gpu:2".
    assertEquals(new SlurmJob.Request(1, 8, 65536, "gpu:2", null), all.get(101L).request());
    assertEquals(
        new SlurmJob.Request(2, 8, 65536, "gpu:2", null),
        all.get(102L).request(),
        "the nodes it holds");
  }

  @Test
  void runningGangJobExpandsItsHostlistAndHasNoLimit() {
    SlurmJob j = jobs().get(102L);
    assertTrue(j.running());
    assertTrue(j.active());
    assertEquals("gpu-a-[3-4]", j.nodes());
    assertEquals(List.of("gpu-a-3", "gpu-a-4"), j.nodeList());
    assertEquals(T0.minusSeconds(600), j.startTime());
    assertNull(j.endTime(), "a running job's end_time is start + limit, a forecast");
    assertNull(j.timeLimitMinutes(), "time_limit {infinite:true} means none");
    assertNull(j.exitCode());
  }

  @Test
  void completingCancelledJobIsStillActive() {
    SlurmJob j = jobs().get(103L);
    assertEquals("CANCELLED", j.state());
    assertEquals(Set.of("COMPLETING"), j.stateFlags());
    assertTrue(j.active(), "resources are held until COMPLETING clears");
    assertFalse(j.finished());
    assertEquals(T0.minusSeconds(5), j.endTime());
    assertEquals(137, j.exitCode(), "SIGKILL: 128 + 9");
  }

  @Test
  void preemptedJobCarriesPreemptTime() {
    SlurmJob j = jobs().get(104L);
    assertEquals("PREEMPTED", j.state());
    assertTrue(j.finished());
    assertEquals(T0.minusSeconds(31), j.preemptTime());
    assertEquals(T0.minusSeconds(30), j.endTime());
    assertEquals(143, j.exitCode(), "SIGTERM: 128 + 15");
    assertEquals("low", j.qos());
  }

  @Test
  void requeuedJobsCountRestartsAndKeepFlags() {
    Map<Long, SlurmJob> all = jobs();
    SlurmJob again = all.get(105L);
    assertTrue(again.pending());
    assertEquals(1, again.restartCount());
    assertEquals("BeginTime", again.stateReason());
    SlurmJob inFlight = all.get(106L);
    assertEquals("PENDING", inFlight.state());
    assertEquals(Set.of("COMPLETING", "REQUEUED"), inFlight.stateFlags());
    assertTrue(inFlight.active(), "its old node is still cleaning up");
    assertEquals(2, inFlight.restartCount());
    assertEquals(List.of("gpu-a-3"), inFlight.nodeList());
  }

  @Test
  void finishedJobsReportExitCodes() {
    Map<Long, SlurmJob> all = jobs();
    assertEquals(0, all.get(107L).exitCode());
    assertTrue(all.get(107L).finished());
    assertEquals(3, all.get(108L).exitCode());
    assertEquals("NonZeroExitCode", all.get(108L).stateReason());
    assertEquals(8, all.size());
  }

  @Test
  void getJobPicksTheJob() {
    fake.onResource("GET", P + "/job/102", 200, P + "/job-running.json");
    SlurmJob j = client.getJob(102);
    assertEquals(102, j.id());
    assertTrue(j.running());
  }

  @Test
  void pingReadsRespondingVersionAndCluster() {
    fake.onResource("GET", P + "/ping/", 200, P + "/ping.json");
    SlurmClient.Ping p = client.ping();
    assertTrue(p.controllerUp());
    assertEquals("25.11.7", p.slurmVersion());
    assertEquals("prod", p.cluster());
    assertEquals(SlurmClient.ApiVersion.V0_0_44, client.apiVersion());
  }

  @Test
  void pingWithControllerNotRespondingIsDown() {
    fake.on(
        "GET",
        P + "/ping/",
        200,
        "{\"pings\":[{\"hostname\":\"c0\",\"pinged\":\"DOWN\",\"responding\":false,"
            + "\"primary\":true}],\"meta\":{\"slurm\":{\"release\":\"25.11.7\"}}}");
    // No pong: a read whose error slurmrestd reports tells an outage from a refused token.
    fake.onResource("GET", P + "/licenses/", 502, P + "/licenses-slurmctld-down.json");
    assertFalse(client.ping().controllerUp());
  }

  @Test
  void closeClosesTheTransport() {
    client.close();
    assertTrue(fake.closed());
  }
}
