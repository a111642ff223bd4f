package dev.tandem.workflows.remediation;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.client.WorkflowOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The budget's history stays bounded while signals keep coming (issue 14): it continues as new once
 * the history is long, without waiting for an hour without any signal.
 */
class RemediationBudgetHistoryTest extends RemediationTestBase {

  private WorkflowExecutionDescription describe() {
    return client.newUntypedWorkflowStub(Names.REMEDIATION_BUDGET_ID).describe();
  }

  private static long length(WorkflowExecutionDescription d) {
    return d.getRawDescription().getWorkflowExecutionInfo().getHistoryLength();
  }

  @Test
  void aBusyBudgetContinuesAsNewWithoutWaitingForAQuietHour() throws InterruptedException {
    RemediationBudgetWorkflow wf =
        client.newWorkflowStub(
            RemediationBudgetWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(Names.REMEDIATION_BUDGET_ID)
                .setTaskQueue(Names.TASK_QUEUE)
                .build());
    WorkflowClient.start(wf::run, new BudgetStatus(null, null, null));
    String first = describe().getExecution().getRunId();
    // Requests for nodes whose remediation workflow does not run (each is refused and released)
    // until the history is past the bound: the budget is signalled far more often than hourly.
    long longest = 0;
    for (int i = 0; i < 5000 && longest < RemediationBudgetWorkflowImpl.MAX_HISTORY_EVENTS; i++) {
      budget().acquire(new SlotRequest("ghost-" + i, List.of("default/gpu"), 1, null, 1, "test"));
      if (i % 50 == 49) {
        longest = Math.max(longest, length(describe()));
      }
    }
    assertTrue(longest >= RemediationBudgetWorkflowImpl.MAX_HISTORY_EVENTS, "past the bound");
    // No time passes here (no time skipping): an hour-long quiet wait never ends.
    String now = first;
    for (int i = 0; i < 200 && now.equals(first); i++) {
      Thread.sleep(50);
      now = describe().getExecution().getRunId();
    }
    assertNotEquals(first, now, "continued as new once past the bound");
  }
}
