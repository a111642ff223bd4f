package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.testing.WorkflowTestBase;
import org.junit.jupiter.api.Test;

/**
 * A NodeSet deleted and created again under the same name while its workflow is still finishing the
 * deletion: the new custom resource's spec reaches the old run (the watcher's signal-with-start
 * signals a running workflow). Before, the old run took it for its own spec, ended, and the new
 * NodeSet had no workflow until the watcher's next resync (10 minutes by default).
 */
class NodeSetSuccessorTest extends WorkflowTestBase {

  @Test
  void aNodeSetCreatedAgainWhileTheOldOneFinishesGetsItsOwnRun() {
    NodeSetWorkflow wf = startNodeSet("again", spec(1, 1, "a"));
    await("1 ready", 120, () -> allReady(wf, 1));
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    wf.specChanged(withUid(spec(1, 2, "b"), "uid-successor"));
    await("the new NodeSet's 2 nodes ready", 300, () -> !wf.status().deleting() && ready(wf));
    NodeSetSnapshot st = wf.status();
    assertFalse(st.deleting(), "the new run is not deleting");
    assertEquals(2, st.desiredReplicas());
    st.nodes().forEach(n -> assertEquals("b", n.revision(), n.pod() + " runs the new template"));
  }

  private boolean ready(NodeSetWorkflow wf) {
    NodeSetSnapshot st = wf.status();
    return st.nodes().size() == 2
        && st.nodes().stream().allMatch(n -> "b".equals(n.revision()))
        && allReady(wf, 2);
  }
}
