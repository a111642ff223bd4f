package dev.tandem.workflows.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
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

  /**
   * One quiet re-read settles a node: the next wait is the longest at once (less its per-node
   * fraction), not 20, 40, 80 ... s.
   */
  @Test
  void oneQuietReReadSettlesTheNodeAtTheLongestWait() {
    Tuning t = new Tuning(1, 10, 4000, 200, 120, true, 640);
    long settled = RestTimer.settledWait(t, dev.tandem.workflows.Names.nodeWorkflowId(NS, "set-0"));
    assertTrue(settled >= 480 && settled <= 640, "three quarters of T to T: " + settled);
    startNode("set", 0, "a", t);
    await("ready", 60, () -> phaseIs("set-0", NodePhase.READY));
    int before = cluster.nodeReads("set-0");
    env.sleep(Duration.ofSeconds(400));
    // The re-read at +10 s, then none before +490 s. Doubling read at +10, 30, 70, 150 and 310 s.
    assertEquals(1, cluster.nodeReads("set-0") - before, "re-reads in the first 400 s");
    env.sleep(Duration.ofSeconds(10 + settled - 400 + 5));
    assertEquals(2, cluster.nodeReads("set-0") - before, "the settled wait is the bound");
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
    // 600 s). Were each resend taken as news, every one would start again at 10 s: re-reads at +10
    // and +30 s after every signal, about 40.
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
    env.sleep(Duration.ofSeconds(15));
    // News starts again at the resync interval: a re-read at +10 s, not 60 to 80 s later.
    assertTrue(cluster.nodeReads("lost-0") - seen >= 1, "the wait was reset after news");
  }
}
