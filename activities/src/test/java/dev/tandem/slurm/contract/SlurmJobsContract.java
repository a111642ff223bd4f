package dev.tandem.slurm.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Jobs: placeholders, cancel, preemption, incremental lists, what a job asks for; the contract
 * every target keeps ({@link SlurmContractTarget} names where they differ). Subclasses: {@code
 * SlurmJobsV0038IT}, {@code SlurmJobsFakeTest}.
 */
public abstract class SlurmJobsContract extends JobsContractBase {
  private static final Duration START = Duration.ofSeconds(30);

  /**
   * More nodes than either target can ever have (the real Slurm declares 36 and allows 256 with
   * dynamic ones; the fake has 4 and its pool): such a job is taken and waits, it never runs.
   */
  private static final int TOO_MANY_NODES = 300;

  private long submit(JobSubmission.Builder b) {
    return submit(b.build());
  }

  private static JobSubmission.Builder placeholder(String node, String partition) {
    return JobSubmission.builder("tandem-it-" + partition)
        .comment("it:" + UUID.randomUUID())
        .partition(partition)
        .nodeList(List.of(node))
        .exclusive(true);
  }

  private SlurmJob awaitState(long id, String state) {
    return Await.until(
        "job " + id + " " + state, START, () -> client.getJob(id), j -> state.equals(j.state()));
  }

  @Test
  void placeholderRunsOnItsNodeAndCancelEndsIt() {
    JobSubmission.Builder b = placeholder("n2", "low");
    long id = submit(b);
    SlurmJob running = awaitState(id, "RUNNING");
    assertEquals(List.of("n2"), running.nodeList());
    assertEquals("tandem-it-low", running.name());
    assertTrue(running.comment().startsWith("it:"));
    assertEquals("low", running.partition());
    assertEquals("root", running.userName());
    assertTrue(running.active());
    assertTrue(
        client.listJobs(null).items().stream().anyMatch(j -> j.id() == id), "listed while running");

    client.cancel(id, null);
    SlurmJob gone =
        Await.until("job " + id + " to end", START, () -> client.getJob(id), SlurmJob::finished);
    assertEquals("CANCELLED", gone.state());
    assertFalse(gone.active());
    client.cancel(id, null); // cancelling an ended job is not an error
  }

  @Test
  void signalReachesARunningJob() {
    long id = submit(placeholder("n2", "low"));
    awaitState(id, "RUNNING");
    // A signal reaches only the job's launched steps: a job that Slurm has just shown RUNNING may
    // not have its batch step yet, and the signal is then lost. Sent again while it runs.
    SlurmJob ended =
        Await.until(
            "job " + id + " to end",
            START,
            Duration.ofSeconds(1),
            () -> {
              SlurmJob j = client.getJob(id);
              if (!j.finished()) {
                client.cancel(id, "SIGTERM");
              }
              return j;
            },
            SlurmJob::finished);
    assertFalse(ended.running());
  }

  @Test
  void highQosPreemptsNormalPlaceholderWhichIsRequeued() {
    long low = submit(placeholder("n4", "low"));
    SlurmJob lowRunning = awaitState(low, "RUNNING");
    assertEquals("normal", lowRunning.qos(), "the default QOS");
    long high = submit(placeholder("n4", "high").qos("high"));
    awaitState(high, "RUNNING");
    // PreemptMode=REQUEUE: RUNNING -> PENDING with restart_cnt + 1, no visible PREEMPTED state
    // (what 22.05 does, and what the fake does).
    SlurmJob requeued =
        Await.until(
            "low job " + low + " requeued",
            START,
            () -> client.getJob(low),
            j -> j.pending() && j.restartCount() > lowRunning.restartCount());
    assertFalse(requeued.running());
  }

  @Test
  void highQosPreemptsNoRequeuePlaceholderWhichEndsPreempted() {
    long low = submit(placeholder("n3", "low").noRequeue(true));
    awaitState(low, "RUNNING");
    long high = submit(placeholder("n3", "high").qos("high"));
    awaitState(high, "RUNNING");
    SlurmJob preempted = awaitState(low, "PREEMPTED");
    assertTrue(preempted.finished());
  }

  @Test
  void placeholderWithGpusAndSizesRuns() {
    long id =
        submit(
            JobSubmission.builder("tandem-it-gpu")
                .nodeCount(1)
                .cpusPerNode(2)
                .memoryMbPerNode(1000L)
                .gresPerNode("gpu:2")
                .timeLimitMinutes(30L)
                .excludeNodes(List.of("n1", "n2")));
    SlurmJob j = awaitState(id, "RUNNING");
    assertTrue(List.of("n3", "n4").contains(j.nodeList().get(0)), j.nodes());
    assertEquals(30L, j.timeLimitMinutes());
    assertEquals(new SlurmJob.Request(1, 2, 1000, "gpu:2", null), j.request());
  }

  /**
   * A job asking for more nodes than its partition has is taken (EnforcePartLimits=NO, Slurm's
   * default) and waits with reason PartitionNodeLimit, reporting the node count it waits for and,
   * asked nothing else, one CPU per node, no GRES and no features.
   */
  @Test
  void pendingMultiNodeJobSaysHowManyNodesItWaitsFor() {
    long id =
        submit(JobSubmission.builder("tandem-it-size").partition("low").nodeCount(TOO_MANY_NODES));
    SlurmJob j = awaitReason(id, "PartitionNodeLimit");
    assertEquals(new SlurmJob.Request(TOO_MANY_NODES, 1, 0, null, null), j.request());
    SlurmJob listed =
        client.listJobs(null).items().stream().filter(x -> x.id() == id).findFirst().orElseThrow();
    assertEquals(j.request(), listed.request(), "a listing reads it as a lookup does");
  }

  /** A waiting job's CPUs and GRES per node read back as asked, GRES in slurm.conf form. */
  @Test
  void pendingGpuJobSaysWhatItNeedsOnEachNode() {
    long id =
        submit(
            JobSubmission.builder("tandem-it-size-gpu")
                .partition("low")
                .nodeCount(TOO_MANY_NODES)
                .cpusPerNode(2)
                .gresPerNode("gpu:2"));
    SlurmJob j = awaitReason(id, "PartitionNodeLimit");
    assertEquals(new SlurmJob.Request(TOO_MANY_NODES, 2, 0, "gpu:2", null), j.request());
  }

  private SlurmJob awaitReason(long id, String reason) {
    SlurmJob j =
        Await.until(
            "job " + id + " waiting for " + reason,
            START,
            () -> client.getJob(id),
            x -> !x.pending() || reason.equals(x.stateReason()));
    assertTrue(j.pending(), j.toString());
    return j;
  }

  @Test
  void incrementalJobListingSeesNothingThenTheNewJob() {
    Listing<SlurmJob> first = client.listJobs(null);
    Listing<SlurmJob> quiet =
        Await.until(
            "an unchanged job listing",
            Duration.ofSeconds(30),
            Duration.ofSeconds(1),
            new Supplier<Listing<SlurmJob>>() {
              Listing<SlurmJob> prev = first;

              @Override
              public Listing<SlurmJob> get() {
                prev = client.listJobs(prev.updateTime());
                return prev;
              }
            },
            l -> !l.changed());
    long id = submit(placeholder("n2", "low"));
    Listing<SlurmJob> after = client.listJobs(quiet.updateTime());
    assertTrue(after.changed());
    assertTrue(after.items().stream().anyMatch(j -> j.id() == id));
  }

  @Test
  void unknownJobIsNotFoundAndBadSubmissionIsRejected() {
    assertThrows(SlurmNotFoundException.class, () -> client.getJob(987_654_321L));
    client.cancel(987_654_321L, null); // unknown or purged: gone, as a retried cancel wants
    SlurmRejectedException e =
        assertThrows(
            SlurmRejectedException.class,
            () -> client.submit(JobSubmission.builder("bad").partition("no-such").build()));
    assertEquals(2000, e.errorNumber(), e.getMessage());
    // Pinned to a node Slurm does not know: refused (2018), not "not found".
    SlurmRejectedException pinned =
        assertThrows(
            SlurmRejectedException.class,
            () -> client.submit(JobSubmission.builder("bad").nodeList(List.of("nx-9")).build()));
    assertEquals(2018, pinned.errorNumber(), pinned.getMessage());
    assertTrue(pinned.slurmMessage().contains("Invalid node name"), pinned.slurmMessage());
  }
}
