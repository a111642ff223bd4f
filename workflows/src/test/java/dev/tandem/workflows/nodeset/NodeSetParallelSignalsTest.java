package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowStub;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A rolling update's wave and a scale-down's victims are signalled in one workflow task. Sent one
 * at a time, each signal waited for its own round trip through the server, and at 1,000 nodes a
 * freed slot stayed empty for seconds.
 */
class NodeSetParallelSignalsTest extends WorkflowTestBase {

  @Test
  void aWaveAndTheVictimsOfAScaleDownLeaveInOneTaskEach() {
    NodeSetWorkflow wf = startNodeSet("wide", spec(1, 6, "a", 3));
    await("6 ready", 300, () -> allReady(wf, 6));
    cluster.track(java.util.Set.of("wide-0", "wide-1", "wide-2", "wide-3", "wide-4", "wide-5"));
    wf.specChanged(spec(2, 6, "b", 3));
    awaitRolled(wf, "b", 6);
    List<Integer> rollout = signalsPerTask(Names.nodeSetWorkflowId(NS, "wide"));
    assertEquals(6, rollout.stream().mapToInt(Integer::intValue).sum(), "signals: " + rollout);
    assertEquals(3, rollout.get(0), "the first wave leaves in one task: " + rollout);
    assertTrue(cluster.maxOutOfService() <= 3, "never over budget: " + cluster.maxOutOfService());

    wf.specChanged(spec(3, 2, "b", 3));
    await("scaled down", 600, () -> wf.status().nodes().size() == 2);
    List<Integer> all = signalsPerTask(Names.nodeSetWorkflowId(NS, "wide"));
    List<Integer> scaleDown = all.subList(rollout.size(), all.size());
    assertEquals(List.of(4), scaleDown, "the four victims leave in one task: " + all);
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    WorkflowStub.fromTyped(wf).getResult(Void.class);
    assertTrue(cluster.pods().isEmpty(), "no pod left: " + cluster.pods().keySet());
  }

  private List<Integer> signalsPerTask(String workflowId) {
    return commandsPerTask(
        workflowId, EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED);
  }
}
