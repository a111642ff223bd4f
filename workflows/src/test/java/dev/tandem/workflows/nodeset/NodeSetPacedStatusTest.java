package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.testing.WorkflowTestBase;
import org.junit.jupiter.api.Test;

/**
 * A busy NodeSet writes a change of its counts at most every 2 s ({@code Versions.PACED_STATUS}),
 * and the last status of a rollout still reaches the resource.
 */
class NodeSetPacedStatusTest extends WorkflowTestBase {

  @Test
  void aRolloutWritesFewerStatusesAndEndsWithTheRightOne() {
    NodeSetWorkflow wf = startNodeSet("paced", spec(1, 8, "a", 4));
    await("8 ready", 300, () -> allReady(wf, 8));
    String ref = new NodeSetRef(NS, "paced").toString();
    await("settled status written", 60, () -> statusIs(ref, 8, 8));
    int before = cluster.statusWrites(ref);
    wf.specChanged(spec(2, 8, "b", 4));
    awaitRolled(wf, "b", 8);
    await("the rollout's last status written", 60, () -> statusIs(ref, 8, 8));
    NodeSetStatusView st = cluster.status(ref);
    assertEquals("b", st.updateRevision());
    int writes = cluster.statusWrites(ref) - before;
    assertTrue(writes <= PACED_MAX, "status writes during a rollout of 8: " + writes);
  }

  /** Measured: 5 with the pace; 9 without (the guard forced off). */
  private static final int PACED_MAX = 7;

  private boolean statusIs(String ref, int ready, int updated) {
    NodeSetStatusView st = cluster.status(ref);
    return st != null && st.readyReplicas() == ready && st.updatedReplicas() == updated;
  }
}
