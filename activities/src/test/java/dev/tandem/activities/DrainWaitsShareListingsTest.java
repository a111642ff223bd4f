package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.testing.MutableClock;
import dev.tandem.workflows.model.NodeJobs;
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
 * A rolling update drains many nodes at once; their drain waits must not each list every job of the
 * cluster (issue 14: the cost follows changes, not the number of draining nodes).
 */
class DrainWaitsShareListingsTest {
  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");

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
        null);
  }

  @Test
  void eightDrainWaitsAskingTogetherCostTwoListingsAndEachSeesItsOwnJobs() throws Exception {
    SlurmClient slurm = mock(SlurmClient.class);
    MutableClock clock = new MutableClock(T0);
    SlurmActivitiesImpl act = new SlurmActivitiesImpl(slurm, clock);
    List<SlurmJob> jobs = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      jobs.add(running(100 + i, "gpu-" + i));
    }
    CountDownLatch asked = new CountDownLatch(8);
    when(slurm.listJobs(isNull()))
        .thenAnswer(
            inv -> {
              asked.await(5, TimeUnit.SECONDS); // all eight have asked
              Thread.sleep(50);
              clock.advance(Duration.ofMillis(200));
              return new Listing<>(true, jobs, T0);
            });
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<NodeJobs>> got = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        String node = "gpu-" + i;
        got.add(
            pool.submit(
                () -> {
                  asked.countDown();
                  return act.jobsOnNode(node);
                }));
      }
      for (int i = 0; i < 8; i++) {
        assertEquals(List.of(100L + i), got.get(i).get(10, TimeUnit.SECONDS).jobIds());
      }
    } finally {
      pool.shutdownNow();
    }
    // The first listing may have begun before some of the others asked; they share a second.
    verify(slurm, org.mockito.Mockito.atMost(2)).listJobs(isNull());
  }

  @Test
  void aDrainWaitAskingAfterAListingBeganNeverTakesIt() {
    SlurmClient slurm = mock(SlurmClient.class);
    MutableClock clock = new MutableClock(T0);
    SlurmActivitiesImpl act = new SlurmActivitiesImpl(slurm, clock);
    when(slurm.listJobs(isNull())).thenReturn(new Listing<>(true, List.of(), T0));
    act.jobsOnNode("gpu-0");
    clock.advance(Duration.ofMillis(1));
    act.jobsOnNode("gpu-0");
    verify(slurm, times(2)).listJobs(isNull());
  }
}
