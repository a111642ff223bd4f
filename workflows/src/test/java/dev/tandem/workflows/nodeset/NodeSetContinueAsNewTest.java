package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.client.WorkflowExecutionDescription;
import org.junit.jupiter.api.Test;

/** A NodeSet and its nodes keep their histories bounded by continuing as new, and go on serving. */
class NodeSetContinueAsNewTest extends WorkflowTestBase {
  /** Continue-as-new after 200 events (the minimum). */
  private static final Tuning SHORT_HISTORY = new Tuning(1, 10, 200, 200, 120, true);

  private WorkflowExecutionDescription describe(String id) {
    return client.newUntypedWorkflowStub(id).describe();
  }

  @Test
  void theNodeSetAndItsNodesContinueAsNewAndStayReady() {
    NodeSetWorkflow wf = startNodeSet("cset", spec(1, 2, "a"), SHORT_HISTORY);
    await("2 ready", 120, () -> allReady(wf, 2));
    String set = Names.nodeSetWorkflowId(NS, "cset");
    String node = Names.nodeWorkflowId(NS, "cset-0");
    String setRun = describe(set).getExecution().getRunId();
    String nodeRun = describe(node).getExecution().getRunId();
    long longest = 0;
    for (int i = 0; i < 400; i++) { // 400 virtual 10-second steps at most
      env.sleep(java.time.Duration.ofSeconds(10));
      for (String id : new String[] {set, node}) {
        longest =
            Math.max(
                longest,
                describe(id).getRawDescription().getWorkflowExecutionInfo().getHistoryLength());
      }
      if (!describe(set).getExecution().getRunId().equals(setRun)
          && !describe(node).getExecution().getRunId().equals(nodeRun)) {
        break;
      }
    }
    assertTrue(!describe(set).getExecution().getRunId().equals(setRun), "NodeSet continued");
    assertTrue(!describe(node).getExecution().getRunId().equals(nodeRun), "node continued");
    assertTrue(longest < 200 + 100, "histories stayed near the bound: " + longest);
    await("2 ready after", 120, () -> allReady(wf, 2));
    assertEquals(2, wf.status().nodes().size());
  }
}
