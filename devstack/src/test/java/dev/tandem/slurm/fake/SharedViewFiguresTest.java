package dev.tandem.slurm.fake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.activities.SlurmActivitiesImpl;
import dev.tandem.activities.SlurmView;
import dev.tandem.slurm.HttpSlurmTransport;
import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.testing.Await;
import dev.tandem.slurm.v0044.SlurmClientV0044;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Shared view figures (docs/benchmarks.md, "Shared Slurm view"): what one poll of 50 drain waits
 * costs slurmrestd in a 500-node fleet with one whole-node job per node, before (a job listing per
 * drain wait) and after (the worker's shared {@link SlurmView}). Prints a table; fails if the
 * shared view costs more than two listings per poll at rest.
 *
 * <pre>./mvnw -o -B -pl devstack -am test -Dtest=SharedViewFiguresTest
 *     -Dsurefire.failIfNoSpecifiedTests=false</pre>
 */
class SharedViewFiguresTest {
  private static final int NODES = 500;
  private static final int DRAINING = 50;
  private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes();

  private record Cost(String what, long requests, long bytes) {}

  @Test
  void fiftyDrainWaitsInA500NodeFleetCostOneSharedRefreshPerPoll() throws Exception {
    try (FakeSlurmrestd fake =
        FakeSlurmrestd.start(
            FakeSlurmrestd.Options.defaults(KEY),
            List.of(FakePartition.all("tandem", 1)),
            List.of())) {
      SlurmClientConfig cfg = fake.clientConfig(Duration.ofSeconds(3600));
      try (SlurmClient c = new SlurmClientV0044(new HttpSlurmTransport(cfg))) {
        for (int i = 0; i < NODES; i++) {
          fake.registerNode("pod-" + i, 64, 512_000, List.of("h100"), "gpu:h100:8");
        }
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
          ids.add(
              c.submit(
                  JobSubmission.builder("j" + i)
                      .partition("tandem")
                      .exclusive(true)
                      .gresPerNode("gpu:8")
                      .build()));
        }
        Await.until(
            "all jobs running",
            Duration.ofSeconds(60),
            () -> c.listJobs(null).items(),
            l -> l.size() == NODES && l.stream().allMatch(SlurmJob::running));
        for (int i = 0; i < DRAINING; i++) {
          c.drain("pod-" + i, "tandem:update: r1 -> r2");
        }
        List<Cost> costs = new ArrayList<>();

        // Before: every drain wait listed every job once per poll.
        long r0 = fake.requests();
        long b0 = fake.bytesOut();
        for (int i = 0; i < DRAINING; i++) {
          c.listJobs(null);
        }
        costs.add(
            new Cost(
                "before: a listing per drain wait", fake.requests() - r0, fake.bytesOut() - b0));

        // After: one view for all; the first poll lists everything.
        SlurmView view = new SlurmView(c, Clock.systemUTC());
        SlurmActivitiesImpl act = new SlurmActivitiesImpl(c, Clock.systemUTC(), view);
        costs.add(poll(fake, act, "after: first poll (full listing)"));
        for (int round = 0; round < 3; round++) {
          costs.add(poll(fake, act, "after: poll, nothing changed"));
        }
        // 1% of the fleet changes between polls: 5 jobs end, 5 more nodes drain.
        for (int i = 0; i < NODES / 100; i++) {
          fake.completeJob(ids.get(DRAINING + i), 0);
          c.drain("pod-" + (DRAINING + NODES / 100 + i), "tandem:update: r1 -> r2");
        }
        costs.add(poll(fake, act, "after: poll, 1% changed"));

        StringBuilder out = new StringBuilder();
        out.append(
            String.format(
                Locale.ROOT,
                "%n%d nodes, %d jobs, %d drain waits per poll (FakeSlurmrestd, v0.0.44)%n",
                NODES,
                NODES,
                DRAINING));
        out.append(
            String.format(Locale.ROOT, "| %-36s | %8s | %12s |%n", "poll", "requests", "bytes"));
        for (Cost k : costs) {
          out.append(
              String.format(
                  Locale.ROOT, "| %-36s | %8d | %12d |%n", k.what(), k.requests(), k.bytes()));
        }
        System.out.print(out);

        Cost before = costs.get(0);
        assertEquals(DRAINING, before.requests());
        for (Cost k : costs.subList(1, costs.size())) {
          // One refresh: nodes and jobs, plus the adapter's full node listing after slurmrestd's
          // "Unable to query partitions" (docs/fake-slurm.md) when nodes changed.
          assertTrue(k.requests() <= 3, k + ": one refresh per poll");
          assertTrue(k.bytes() * 10 < before.bytes(), k + " against " + before);
        }
      }
    }
  }

  /** One poll round: every drain wait asks once, all within the view's freshness window. */
  private static Cost poll(FakeSlurmrestd fake, SlurmActivitiesImpl act, String what)
      throws InterruptedException {
    Thread.sleep(SlurmView.FRESH.toMillis() + 100); // the previous poll's snapshot is stale now
    long r0 = fake.requests();
    long b0 = fake.bytesOut();
    for (int i = 0; i < DRAINING; i++) {
      assertEquals(1, act.jobsOnNode("pod-" + i).jobIds().size());
    }
    return new Cost(what, fake.requests() - r0, fake.bytesOut() - b0);
  }
}
