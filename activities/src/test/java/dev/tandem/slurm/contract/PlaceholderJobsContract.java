package dev.tandem.slurm.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.JobSubmission.Exclusivity;
import dev.tandem.slurm.PlaceholderJob;
import dev.tandem.slurm.PlaceholderJob.Phase;
import dev.tandem.slurm.PlaceholderTag;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.testing.Await;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Placeholder jobs (docs/slurm-client.md, "Placeholder jobs"): tagged submit, found by tag,
 * incremental listing, cancel, preemption by the high partition, and KillWait; the contract every
 * target keeps ({@link SlurmContractTarget} names where they differ). Subclasses: {@code
 * PlaceholderJobsV0038IT}, {@code PlaceholderJobsFakeTest}.
 */
public abstract class PlaceholderJobsContract extends JobsContractBase {
  private static final Duration WAIT = Duration.ofSeconds(40);

  /** A small placeholder: one CPU, 100 MB, shared, nowhere in particular. */
  private static JobSubmission.Builder small(String uid) {
    return PlaceholderTag.submission(uid)
        .partition("low")
        .nodeCount(1)
        .cpusPerNode(1)
        .memoryMbPerNode(100L)
        .timeLimitMinutes(30L);
  }

  private PlaceholderJob awaitTagged(String uid, Predicate<PlaceholderJob> done) {
    return Await.until(
        "placeholder " + uid,
        WAIT,
        () -> {
          List<PlaceholderJob> found = client.findJobsByTag(uid);
          return found.size() == 1 ? found.get(0) : null;
        },
        p -> p != null && done.test(p));
  }

  @Test
  void placeholderRunsIsFoundByTagAndCancelEndsIt() {
    String uid = UUID.randomUUID().toString();
    long id = submit(small(uid).exclusivity(Exclusivity.USER).nice(10).build());
    PlaceholderJob running = awaitTagged(uid, p -> p.phase() == Phase.RUNNING);
    assertEquals(id, running.jobId());
    assertEquals("RUNNING", running.state());
    assertEquals(1, running.nodes().size(), running.toString());
    assertTrue(running.nodes().get(0).matches("n[1-4]"), running.toString());
    assertEquals(0, running.restartCount());
    assertEquals(List.of(), client.findJobsByTag(UUID.randomUUID().toString()));

    client.cancel(id, null);
    PlaceholderJob ended = awaitTagged(uid, PlaceholderJob::over);
    assertEquals("CANCELLED", ended.state());
    assertEquals(Phase.ENDED, ended.phase());
    client.cancel(id, null); // already gone: fine
  }

  @Test
  void incrementalListingIsUnchangedUntilAPlaceholderChanges() {
    String uid = UUID.randomUUID().toString();
    long id = submit(small(uid).build());
    awaitTagged(uid, p -> p.phase() == Phase.RUNNING);
    Listing<PlaceholderJob> full = client.listPlaceholderJobs(null);
    assertTrue(full.changed());
    assertTrue(full.items().stream().anyMatch(p -> p.jobId() == id), full.items().toString());
    // Other jobs may still be settling: poll until one listing says "unchanged" (a 304).
    Listing<PlaceholderJob> quiet =
        Await.until(
            "an unchanged placeholder listing",
            WAIT,
            Duration.ofSeconds(1),
            new Supplier<Listing<PlaceholderJob>>() {
              Listing<PlaceholderJob> prev = full;

              @Override
              public Listing<PlaceholderJob> get() {
                prev = client.listPlaceholderJobs(prev.updateTime());
                return prev;
              }
            },
            l -> !l.changed());
    assertTrue(quiet.items().isEmpty());

    client.cancel(id, null);
    Listing<PlaceholderJob> after =
        Await.until(
            "a listing with the cancelled placeholder",
            WAIT,
            () -> client.listPlaceholderJobs(quiet.updateTime()),
            l -> l.items().stream().anyMatch(p -> p.jobId() == id && p.over()));
    assertTrue(after.changed());
  }

  @Test
  void noRequeuePlaceholderPreemptedByAHighQosJobEndsPreempted() {
    String uid = UUID.randomUUID().toString();
    long id = submit(small(uid).build());
    PlaceholderJob running = awaitTagged(uid, p -> p.phase() == Phase.RUNNING);
    String node = running.nodes().get(0);
    submit(
        JobSubmission.builder("tandem-it-high")
            .partition("high")
            .qos("high")
            .nodeList(List.of(node))
            .exclusive(true)
            .build());
    // 22.05 with no_requeue: RUNNING -> (COMPLETING) -> PREEMPTED, preempt_time set; the fake
    // goes RUNNING -> PREEMPTED at once (it has no KillWait).
    PlaceholderJob preempted = awaitTagged(uid, p -> p.phase() == Phase.PREEMPTED);
    assertEquals(id, preempted.jobId());
    assertEquals("PREEMPTED", preempted.state());
    assertTrue(preempted.preemptTime() != null, preempted.toString());
    assertTrue(preempted.over());
  }

  @Test
  void requeueablePlaceholderPreemptedComesBackPendingAsRequeued() {
    // What PlaceholderTag.submission avoids: without no_requeue, 22.05 puts the preempted job
    // back to PENDING (reason BeginTime, restart_cnt + 1) with no visible PREEMPTED state.
    String uid = UUID.randomUUID().toString();
    submit(small(uid).noRequeue(false).build());
    PlaceholderJob running = awaitTagged(uid, p -> p.phase() == Phase.RUNNING);
    submit(
        JobSubmission.builder("tandem-it-high")
            .partition("high")
            .qos("high")
            .nodeList(List.of(running.nodes().get(0)))
            .exclusive(true)
            .build());
    PlaceholderJob requeued = awaitTagged(uid, p -> p.phase() == Phase.REQUEUED);
    assertEquals("PENDING", requeued.state());
    assertTrue(requeued.restartCount() >= 1, requeued.toString());
    assertFalse(requeued.over());
  }

  @Test
  void unknownQosIsRejectedBySlurm() {
    SlurmRejectedException e =
        assertThrows(
            SlurmRejectedException.class,
            () -> submit(small(UUID.randomUUID().toString()).qos("no-such-qos").build()));
    assertEquals(2066, e.errorNumber(), e.getMessage());
  }

  @Test
  void unknownAccountIsRejectedBySlurm() {
    SlurmRejectedException e =
        assertThrows(
            SlurmRejectedException.class,
            () -> submit(small(UUID.randomUUID().toString()).account("no-such-account").build()));
    assertEquals(2045, e.errorNumber(), e.getMessage());
  }

  @Test
  void aPlaceholderCarriesItsQosAndAccount() {
    String uid = UUID.randomUUID().toString();
    long id = submit(small(uid).qos("low").account("ml").build());
    SlurmJob j = client.getJob(id);
    assertEquals("low", j.qos());
    assertEquals("ml", j.account());
    client.cancel(id, null);
  }

  @Test
  void unknownReservationIsRejectedBySlurm() {
    SlurmRejectedException e =
        assertThrows(
            SlurmRejectedException.class,
            () -> submit(small(UUID.randomUUID().toString()).reservation("no-such-resv").build()));
    assertEquals(2053, e.errorNumber(), e.getMessage());
  }

  @Test
  void killWaitIsReportedWhereTheApiCan() {
    // Real: scripts/lib/slurm-local-setup.sh sets KillWait=5, read with scontrol. v0.0.44 reports
    // none (SlurmContractTarget#expectedKillWait).
    assertEquals(slurm.expectedKillWait(), client.killWait());
  }
}
