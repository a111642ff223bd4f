package dev.tandem.workflows.remediation;

import dev.tandem.workflows.Names;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Grants remediation slots within the budgets, first come first served per scope. One workflow for
 * the cluster, id {@link Names#REMEDIATION_BUDGET_ID}, started by the first {@code acquire}
 * (signal-with-start, through an activity). See its implementation for the algorithm.
 */
@WorkflowInterface
public interface RemediationBudgetWorkflow {

  /** Runs for as long as the cluster does (continues as new); carried = state handed over. */
  @WorkflowMethod(name = "RemediationBudget")
  void run(BudgetStatus carried);

  @SignalMethod(name = Names.SIGNAL_ACQUIRE)
  void acquire(SlotRequest request);

  /** {@code k8sNode} gives back its slot or its place in line; {@code note} says how it ended. */
  @SignalMethod(name = Names.SIGNAL_RELEASE)
  void release(SlotRelease release);

  @QueryMethod(name = Names.QUERY_STATUS)
  BudgetStatus status();
}
