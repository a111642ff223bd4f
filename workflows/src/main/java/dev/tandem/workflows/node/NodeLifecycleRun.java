package dev.tandem.workflows.node;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeStatus;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * What a worker runs of {@link NodeLifecycleWorkflow}: its workflow method and query. The
 * implementation takes the signals through {@link dev.tandem.workflows.support.SignalInbox}, so
 * that the SDK never decodes (or drops) a payload; senders use {@link NodeLifecycleWorkflow}.
 */
@WorkflowInterface
public interface NodeLifecycleRun {
  /** Runs until the node is deleted; returns {@link NodePhase#DELETED}. */
  @WorkflowMethod(name = Names.TYPE_NODE)
  NodePhase run(NodeLifecycleInput input);

  @QueryMethod(name = Names.QUERY_STATUS)
  NodeStatus status();
}
