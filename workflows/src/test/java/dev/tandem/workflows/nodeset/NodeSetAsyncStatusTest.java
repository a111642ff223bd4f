package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.testing.WorkflowTestBase;
import org.junit.jupiter.api.Test;

/**
 * {@code Versions.ASYNC_STATUS}: a status write under way does not hold the NodeSet's loop. With
 * the writes held (a slow API server), a spec that arrives meanwhile is acted on at once; the
 * status written once the writes go through is the latest, not one of the statuses in between.
 */
class NodeSetAsyncStatusTest extends WorkflowTestBase {

  @Test
  void aStatusWriteUnderWayDoesNotHoldTheNextDecision() {
    NodeSetWorkflow wf = startNodeSet("slow", spec(1, 1, "a"));
    await("1 ready", 120, () -> allReady(wf, 1));
    await("status written", 30, () -> cluster.status("default/slow") != null);

    cluster.holdStatusWrites(true);
    try {
      wf.specChanged(spec(2, 2, "a")); // its pass starts a status write that hangs
      await("slow-1 started", 60, () -> cluster.pods().containsKey("slow-1"));
      wf.specChanged(spec(3, 3, "a")); // arrives while the write hangs
      await("slow-2 started while the write hangs", 60, () -> cluster.pods().containsKey("slow-2"));
      assertEquals(1, cluster.status("default/slow").replicas(), "nothing written yet");
    } finally {
      cluster.holdStatusWrites(false);
    }
    await("3 ready", 120, () -> allReady(wf, 3));
    await("latest status written", 60, () -> cluster.status("default/slow").readyReplicas() == 3);
    assertTrue(cluster.violations().isEmpty(), cluster.violations().toString());
  }
}
