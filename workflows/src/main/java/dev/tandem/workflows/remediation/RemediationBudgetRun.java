package dev.tandem.workflows.remediation;

import dev.tandem.workflows.Names;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * What a worker runs of {@link RemediationBudgetWorkflow}: its workflow method and query. The
 * implementation takes the signals through {@link dev.tandem.workflows.support.SignalInbox}, so
 * that the SDK never decodes (or drops) a payload; senders use {@link RemediationBudgetWorkflow}.
 */
@WorkflowInterface
public interface RemediationBudgetRun {
  /** Runs for as long as the cluster does (continues as new); carried = state handed over. */
  @WorkflowMethod(name = Names.TYPE_REMEDIATION_BUDGET)
  void run(BudgetStatus carried);

  @QueryMethod(name = Names.QUERY_STATUS)
  BudgetStatus status();
}
