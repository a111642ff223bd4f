package dev.tandem.activities;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.remediation.BudgetStatus;
import dev.tandem.workflows.remediation.RemediationBudgetWorkflow;
import dev.tandem.workflows.remediation.SlotRelease;
import dev.tandem.workflows.remediation.SlotRequest;
import io.temporal.client.BatchRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;

/**
 * {@code acquire}/{@code release} to the one {@code remediation-budget} workflow, by
 * signal-with-start: the first request starts it, later ones (and a budget that continued as new)
 * just get the signal. A Temporal error fails the activity, which Temporal retries; the budget
 * treats a repeated signal as one.
 */
final class BudgetSignals {
  private final WorkflowClient temporal;

  BudgetSignals(WorkflowClient temporal) {
    this.temporal = temporal;
  }

  void acquire(SlotRequest request) {
    RemediationBudgetWorkflow wf = stub();
    BatchRequest b = temporal.newSignalWithStartRequest();
    b.add(wf::run, (BudgetStatus) null);
    b.add(wf::acquire, request);
    temporal.signalWithStart(b);
  }

  void release(SlotRelease release) {
    RemediationBudgetWorkflow wf = stub();
    BatchRequest b = temporal.newSignalWithStartRequest();
    b.add(wf::run, (BudgetStatus) null);
    b.add(wf::release, release);
    temporal.signalWithStart(b);
  }

  private RemediationBudgetWorkflow stub() {
    return temporal.newWorkflowStub(
        RemediationBudgetWorkflow.class,
        WorkflowOptions.newBuilder()
            .setWorkflowId(Names.REMEDIATION_BUDGET_ID)
            .setTaskQueue(Names.TASK_QUEUE)
            .setStaticSummary("Remediation budget")
            .build());
  }
}
