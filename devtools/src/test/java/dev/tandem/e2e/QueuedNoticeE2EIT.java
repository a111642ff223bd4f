package dev.tandem.e2e;

import static dev.tandem.e2e.SchedPods.EVERY;
import static dev.tandem.e2e.SchedPods.LIMIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.testing.Await;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A pod whose placeholder waits in Slurm's queue is told so within seconds, by the Slurm watcher's
 * signal for a job still waiting, and is bound once Slurm starts the job. The stack's re-reads are
 * set far beyond the test (node resync 5 min, Slurm full resync 10 min), so only that signal can
 * bring the notice in time: the pod workflow keeps no timer of its own for it any more.
 */
class QueuedNoticeE2EIT {
  private static final String SET = "e2e";
  private static final int NODES = 3;

  /** Far beyond the notice: the 6 s signal, a poll and a busy machine. */
  private static final Duration NOTICE_LIMIT = Duration.ofSeconds(30);

  private static E2EStack e2e;
  private static SchedPods pods;

  @BeforeAll
  static void start() throws Exception {
    e2e =
        E2EStack.start(
            Map.of(
                "TANDEM_NODE_RESYNC", "5m",
                "TANDEM_NODE_REST_MAX", "40m",
                "TANDEM_SLURM_FULL_RESYNC", "10m"));
    e2e.ownNodeSet(SET, NODES);
    pods = new SchedPods(e2e);
  }

  @AfterAll
  static void stop() {
    if (e2e != null) {
      pods.deleteAll();
      e2e.close();
    }
  }

  @Test
  void aPodWhoseJobWaitsInSlurmsQueueIsToldSoAndBoundWhenItStarts() throws Exception {
    List<Long> blockers = new ArrayList<>();
    try {
      // Every node of the pool taken whole by a higher tier, which the placeholder cannot preempt.
      for (int i = 0; i < NODES; i++) {
        blockers.add(e2e.sbatchHigh(SET + "-" + i, 300));
      }
      for (long b : blockers) {
        Await.until(
            "blocker " + b + " running",
            LIMIT,
            EVERY,
            () -> e2e.slurm.getJob(b),
            SlurmJob::running);
      }
      long created = System.nanoTime();
      pods.create("queued-1", Map.of());
      PodCondition queued =
          Await.until(
              "queued-1 told it waits",
              NOTICE_LIMIT,
              EVERY,
              () ->
                  pods.get("queued-1")
                      .flatMap(p -> SchedPods.condition(p, "SlurmScheduled"))
                      .orElse(null),
              c -> c != null);
      Duration took = Duration.ofNanos(System.nanoTime() - created);
      assertEquals("False", queued.getStatus(), queued.toString());
      assertEquals("JobPending", queued.getReason(), queued.toString());
      assertTrue(queued.getMessage().contains("queued"), queued.toString());
      System.out.printf("queued notice %d ms after the pod was created%n", took.toMillis());
      assertTrue(pods.get("queued-1").orElseThrow().getSpec().getNodeName() == null, "not bound");

      for (long b : blockers) {
        e2e.scancel(b);
      }
      blockers.clear();
      pods.awaitBound("queued-1");
      PodCondition running = pods.awaitCondition("queued-1", "SlurmScheduled", "True");
      assertEquals("JobRunning", running.getReason());
    } finally {
      for (long b : blockers) {
        e2e.scancel(b);
      }
    }
  }
}
