package dev.tandem.workflows.node;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.testing.WorkflowTestBase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A node at rest re-reads less and less often while nothing happens, and a change no signal
 * reported is still seen within the documented bound (docs/architecture.md, "Safety re-reads at
 * rest").
 */
class NodeRestTimerTest extends WorkflowTestBase {
  /** Resync 10 s; the rest bound defaults to 8 × 10 s. */
  private static final Tuning T = new Tuning(1, 10, 4000, 200, 120, true);

  @Test
  void anIdleReadyNodeReadsSlurmFarLessOftenThanEveryResync() {
    startNode("rest", 0, "a", T);
    await("ready", 60, () -> phaseIs("rest-0", NodePhase.READY));
    int before = cluster.nodeReads("rest-0");
    env.sleep(Duration.ofSeconds(600));
    int reads = cluster.nodeReads("rest-0") - before;
    // Waits 10, 20, 40, then 80 s: about 9 re-reads in 600 s, not 60 (one per resync).
    assertTrue(reads >= 600 / 80 - 1 && reads <= 12, "re-reads in 600 s at rest: " + reads);
  }

  @Test
  void signalsThatRepeatWhatTheNodeKnowsDoNotShortenTheWait() {
    startNode("resent", 0, "a", T);
    await("ready", 60, () -> phaseIs("resent-0", NodePhase.READY));
    PodView pod = nodeStatus("resent-0").pod();
    int before = cluster.nodeReads("resent-0");
    // The watchers resend every view on each informer resync: here every 30 s, unchanged.
    for (int i = 0; i < 20; i++) {
      env.sleep(Duration.ofSeconds(30));
      node("resent-0").podObserved(pod);
    }
    int reads = cluster.nodeReads("resent-0") - before;
    // Not news: the waits grow as without the signals (10, 20, 40, 80 s: about 9 re-reads in
    // 600 s). Before Versions.REST_NEWS each resend started again at 10 s: re-reads at +10 and +30
    // s after every signal, about 40.
    assertTrue(reads <= 12, "re-reads in 600 s with a resend every 30 s: " + reads);
    // Nor do they put the re-reads off: each is due at a time, at most 80 s after the last.
    assertTrue(reads >= 600 / 80 - 1, "the resends postponed the re-reads: " + reads);
  }

  @Test
  void aChangeNoSignalReportedIsSeenWithinTheBoundAndResetsTheWait() {
    startNode("lost", 0, "a", T);
    await("ready", 60, () -> phaseIs("lost-0", NodePhase.READY));
    env.sleep(Duration.ofSeconds(600)); // the wait is at its longest now
    cluster.adminDrain("lost-0", "bad DIMM"); // and the watcher's signal is lost
    await("seen", T.restMaxSeconds() + 2, () -> nodeStatus("lost-0").slurm().drainFlag());
    int seen = cluster.nodeReads("lost-0");
    env.sleep(Duration.ofSeconds(35));
    // News starts again at the resync interval: re-reads at +10 s and +30 s.
    assertTrue(cluster.nodeReads("lost-0") - seen >= 2, "the wait was reset after news");
  }
}
