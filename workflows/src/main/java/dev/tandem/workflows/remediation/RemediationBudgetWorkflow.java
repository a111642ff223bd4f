package dev.tandem.workflows.remediation;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.support.Requires;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.WorkflowInterface;

/**
 * Grants remediation slots within the budgets, first come first served per scope. One workflow for
 * the cluster, id {@link Names#REMEDIATION_BUDGET_ID}, started by the first {@code acquire}
 * (signal-with-start, through an activity). See its implementation for the algorithm.
 */
@WorkflowInterface
public interface RemediationBudgetWorkflow extends RemediationBudgetRun {

  @SignalMethod(name = Names.SIGNAL_ACQUIRE)
  @Requires("k8sNode")
  void acquire(SlotRequest request);

  /** {@code k8sNode} gives back its slot or its place in line; {@code note} says how it ended. */
  @SignalMethod(name = Names.SIGNAL_RELEASE)
  @Requires("k8sNode")
  void release(SlotRelease release);
}
