package dev.tandem.workflows.remediation;

import dev.tandem.workflows.Names;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * What a worker runs of {@link RemediationWorkflow}: its workflow method and query. The
 * implementation takes the signals through {@link dev.tandem.workflows.support.SignalInbox}, so
 * that the SDK never decodes (or drops) a payload; senders use {@link RemediationWorkflow}.
 */
@WorkflowInterface
public interface RemediationRun {
  /** Runs the ladder; returns RECOVERED, FAILED or DISMISSED. */
  @WorkflowMethod(name = Names.TYPE_REMEDIATION)
  RemediationStep run(RemediationInput input);

  @QueryMethod(name = Names.QUERY_STATUS)
  RemediationState status();
}
