package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeSetSnapshot;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * What a worker runs of {@link NodeSetWorkflow}: its workflow method and query. The implementation
 * takes the signals through {@link dev.tandem.workflows.support.SignalInbox}, so that the SDK never
 * decodes (or drops) a payload; senders use {@link NodeSetWorkflow}.
 */
@WorkflowInterface
public interface NodeSetRun {
  /** Runs until the NodeSet is deleted and all its nodes are gone. */
  @WorkflowMethod(name = Names.TYPE_NODESET)
  void run(NodeSetInput input);

  @QueryMethod(name = Names.QUERY_STATUS)
  NodeSetSnapshot status();
}
