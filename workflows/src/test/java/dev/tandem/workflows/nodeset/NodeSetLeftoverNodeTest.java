package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.testing.Leftover;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import org.junit.jupiter.api.Test;

/**
 * A node workflow id still held by a workflow that is about to end: the NodeSet's start is refused
 * as already started, the holder never reports and then ends. Before, the NodeSet took the holder
 * for its own node and waited 30 resync periods (300 s here) before it looked again; a NodeSet
 * deleted and created again under the same name, or scaled down and up at once, had a node missing
 * for that long.
 */
class NodeSetLeftoverNodeTest extends WorkflowTestBase {

  @Override
  protected void moreWorkers(TestWorkflowEnvironment env) {
    Leftover.register(env);
  }

  @Test
  void aNodeWorkflowIdHeldByOneAboutToEndIsStartedOnceItEnds() {
    Leftover.start(client, Names.nodeWorkflowId(NS, "again-0"), 8);
    long t0 = env.currentTimeMillis();
    NodeSetWorkflow wf = startNodeSet("again", spec(1, 2, "a"));
    await("2 ready", 90, () -> allReady(wf, 2));
    long took = (env.currentTimeMillis() - t0) / 1000;
    // Probes at 2, 6 and 14 s (poll 1 s, resync 10 s); the holder ends at 8 s.
    assertTrue(took <= 40, "ready after " + took + " s");
    assertTrue(
        phaseIs("again-0", dev.tandem.workflows.model.NodePhase.READY), "again-0 is a node now");
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    WorkflowStub.fromTyped(wf).getResult(Void.class);
    assertTrue(cluster.pods().isEmpty(), "no pod left: " + cluster.pods().keySet());
  }
}
