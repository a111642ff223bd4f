package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.api.enums.v1.EventType;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A NodeSet with more nodes than one batch starts its node workflows in workflow tasks of at most
 * {@link NodeSetNodes#STARTS_PER_TASK} starts each: one task's commands travel in one gRPC message,
 * and 5,000 starts in one task were refused by the server.
 */
class NodeSetBatchedStartsTest extends WorkflowTestBase {
  private static final int NODES = NodeSetNodes.STARTS_PER_TASK + 30;

  @Test
  void moreNodesThanOneBatchStartInSeveralTasksAndAllRun() {
    NodeSetWorkflow wf = startNodeSet("big", spec(1, NODES, "a"));
    await(NODES + " ready", 600, () -> allReady(wf, NODES));
    List<Integer> perTask = startsPerTask(Names.nodeSetWorkflowId(NS, "big"));
    assertEquals(NODES, perTask.stream().mapToInt(Integer::intValue).sum(), "starts: " + perTask);
    assertTrue(
        perTask.stream().allMatch(n -> n <= NodeSetNodes.STARTS_PER_TASK),
        "no task starts more than a batch: " + perTask);
    assertTrue(perTask.size() >= 2, "several tasks: " + perTask);
  }

  private List<Integer> startsPerTask(String workflowId) {
    return commandsPerTask(
        workflowId, EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED);
  }
}
