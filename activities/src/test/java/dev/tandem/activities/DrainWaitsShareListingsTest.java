package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.Mockito.atMost;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.testing.MutableClock;
import dev.tandem.workflows.model.NodeJobs;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A rolling update drains many nodes at once; their drain waits read one shared Slurm view instead
 * of each listing every job of the cluster (issue 14: the cost follows changes, not the number of
 * draining nodes), and never answer "no jobs" from a view that could not be refreshed.
 */
class DrainWaitsShareListingsTest {
  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");
  private static final Instant U1 = T0.minusSeconds(5);
  private final SlurmClient slurm = mock(SlurmClient.class);
  private final MutableClock clock = new MutableClock(T0);
  private final SlurmView view = new SlurmView(slurm, clock);
  private final SlurmActivitiesImpl act = new SlurmActivitiesImpl(slurm, clock, view);

  private static SlurmJob running(long id, String node) {
    return new SlurmJob(
        id,
        "j" + id,
        null,
        "RUNNING",
        Set.of(),
        "None",
        node,
        List.of(node),
        "gpu",
        null,
        null,
        "alice",
        0,
        null,
        null,
        null,
        null,
        null,
        null,
        SlurmJob.Request.UNKNOWN);
  }

  private static SlurmNode node(String name, Set<String> flags) {
    return new SlurmNode(
        name,
        "mixed",
        flags,
        flags.isEmpty() ? null : "tandem:update: r1 -> r2",
        "root",
        null,
        8,
        8,
        1000,
        "",
        "",
        List.of("gpu"),
        List.of(),
        null,
        name,
        T0.minusSeconds(600),
        null,
        "22.05.8");
  }

  /** {@code n} nodes, the first {@code drained} of them with the DRAIN flag; one job on each. */
  private void cluster(int n, int drained) {
    List<SlurmNode> nodes = new ArrayList<>();
    List<SlurmJob> jobs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(node("gpu-" + i, i < drained ? Set.of("DRAIN") : Set.of()));
      jobs.add(running(100 + i, "gpu-" + i));
    }
    when(slurm.listNodes(any())).thenReturn(new Listing<>(true, nodes, U1));
    when(slurm.listJobs(any())).thenReturn(new Listing<>(true, jobs, U1));
  }

  @Test
  void fiftyDrainWaitsOnDrainedNodesCostOneRefreshPerFreshnessWindow() {
    cluster(500, 50);
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 50; i++) {
        assertEquals(List.of(100L + i), act.jobsOnNode("gpu-" + i).jobIds());
        clock.advance(Duration.ofMillis(9)); // 50 asks spread over 450 ms: one window
      }
      clock.advance(Duration.ofMillis(100)); // the next poll round: a new window
    }
    assertEquals(3, view.refreshes(), "3 windows, 3 refreshes for 150 drain waits");
    assertEquals(6, view.requests(), "one node and one job listing per refresh");
    // Only the first is a full listing; the others ask incrementally from its update_time.
    verify(slurm, times(1)).listJobs(isNull());
    verify(slurm, times(2)).listJobs(eq(U1));
    verify(slurm, times(2)).listNodes(eq(U1));
  }

  @Test
  void concurrentDrainWaitsShareRefreshesAndEachSeesItsOwnJobs() throws Exception {
    List<SlurmNode> nodes = new ArrayList<>();
    List<SlurmJob> jobs = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      nodes.add(node("gpu-" + i, Set.of("DRAIN")));
      jobs.add(running(100 + i, "gpu-" + i));
    }
    CountDownLatch asked = new CountDownLatch(8);
    when(slurm.listNodes(any())).thenReturn(new Listing<>(true, nodes, U1));
    when(slurm.listJobs(any()))
        .thenAnswer(
            inv -> {
              asked.await(5, TimeUnit.SECONDS); // all eight have asked
              Thread.sleep(50);
              clock.advance(Duration.ofMillis(200));
              return new Listing<>(true, jobs, U1);
            });
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<NodeJobs>> got = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        String name = "gpu-" + i;
        got.add(
            pool.submit(
                () -> {
                  asked.countDown();
                  return act.jobsOnNode(name);
                }));
      }
      for (int i = 0; i < 8; i++) {
        assertEquals(List.of(100L + i), got.get(i).get(10, TimeUnit.SECONDS).jobIds());
      }
    } finally {
      pool.shutdownNow();
    }
    verify(slurm, atMost(2)).listJobs(any());
  }

  @Test
  void aNodeNotYetDrainedInTheSnapshotGetsAListingBegunAfterItsAsk() {
    cluster(4, 1);
    assertEquals(List.of(100L), act.jobsOnNode("gpu-0").jobIds());
    clock.advance(Duration.ofMillis(100)); // within the window, but gpu-1 shows no drain in it
    // A job started on gpu-1 after that snapshot began (its drain came later): a new listing.
    List<SlurmJob> now = List.of(running(100, "gpu-0"), running(101, "gpu-1"), running(7, "gpu-1"));
    when(slurm.listJobs(any())).thenReturn(new Listing<>(true, now, U1.plusSeconds(1)));
    assertEquals(List.of(7L, 101L), act.jobsOnNode("gpu-1").jobIds());
    assertEquals(2, view.refreshes());
  }

  @Test
  void aDownNodeWithoutTheDrainFlagIsNotEnough() {
    // DOWN without DRAIN may return to service by itself (ReturnToService) and take a job.
    List<SlurmNode> nodes = new ArrayList<>();
    nodes.add(
        new SlurmNode(
            "gpu-0",
            "down",
            Set.of("NOT_RESPONDING"),
            "Not responding",
            "slurm",
            null,
            8,
            0,
            1000,
            "",
            "",
            List.of("gpu"),
            List.of(),
            null,
            "gpu-0",
            T0,
            null,
            "22.05.8"));
    when(slurm.listNodes(any())).thenReturn(new Listing<>(true, nodes, U1));
    when(slurm.listJobs(any())).thenReturn(new Listing<>(true, List.of(), U1));
    act.jobsOnNode("gpu-0");
    assertEquals(2, view.refreshes(), "a listing begun after the ask, not the shared snapshot");
  }

  @Test
  void anUnchangedIncrementalListingKeepsTheJobsItHad() {
    cluster(4, 4);
    act.jobsOnNode("gpu-0");
    clock.advance(Duration.ofSeconds(1));
    when(slurm.listNodes(eq(U1))).thenReturn(Listing.unchanged(U1));
    when(slurm.listJobs(eq(U1))).thenReturn(Listing.unchanged(U1));
    assertEquals(List.of(103L), act.jobsOnNode("gpu-3").jobIds());
    assertEquals(2, view.refreshes());
  }

  @Test
  void aFullResyncOnItsPeriodWhateverUpdateTimeSays() {
    cluster(4, 4);
    when(slurm.listNodes(eq(U1))).thenReturn(Listing.unchanged(U1));
    when(slurm.listJobs(eq(U1))).thenReturn(Listing.unchanged(U1));
    for (int i = 0; i < 13; i++) { // 13 polls 5 s apart: 60 s after the first full listing
      act.jobsOnNode("gpu-0");
      clock.advance(Duration.ofSeconds(5));
    }
    act.jobsOnNode("gpu-0");
    verify(slurm, times(2)).listJobs(isNull());
    verify(slurm, times(12)).listJobs(eq(U1));
  }

  @Test
  void aViewThatCannotRefreshNeverAnswersIdle() {
    cluster(4, 4);
    assertEquals(List.of(100L), act.jobsOnNode("gpu-0").jobIds());
    clock.advance(Duration.ofSeconds(1)); // the snapshot is stale now
    when(slurm.listJobs(any())).thenThrow(new SlurmUnavailableException("connection refused"));
    assertThrows(ApplicationFailure.class, () -> act.jobsOnNode("gpu-0"));
    clock.advance(Duration.ofMillis(1)); // still within the stale snapshot's window + failure
    assertThrows(ApplicationFailure.class, () -> act.jobsOnNode("gpu-1"));
  }

  @Test
  void aFailedFirstListingAndAnUnchangedFullListingAreUnknownNotIdle() {
    when(slurm.listNodes(any())).thenReturn(new Listing<>(true, List.of(), U1));
    when(slurm.listJobs(any())).thenThrow(new SlurmUnavailableException("timeout"));
    assertThrows(ApplicationFailure.class, () -> act.jobsOnNode("gpu-0"));
    clock.advance(Duration.ofMillis(1));
    doReturn(Listing.unchanged(U1)).when(slurm).listJobs(any());
    assertThrows(ApplicationFailure.class, () -> act.jobsOnNode("gpu-0"));
  }
}
