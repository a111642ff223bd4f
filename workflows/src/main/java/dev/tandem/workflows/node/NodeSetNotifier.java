package dev.tandem.workflows.node;

import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.Workflow;
import org.slf4j.Logger;

/** Sends a node's report to its NodeSet workflow; a missing NodeSet workflow is not an error. */
final class NodeSetNotifier {
  private static final Logger log = Workflow.getLogger(NodeSetNotifier.class);

  private NodeSetNotifier() {}

  /** Whether the NodeSet workflow received it (false: no run of it took the signal). */
  static boolean send(String nodeSetWorkflowId, NodeReport report) {
    try {
      Workflow.newExternalWorkflowStub(NodeSetWorkflow.class, nodeSetWorkflowId)
          .nodeReported(report);
      return true;
    } catch (SignalExternalWorkflowException | ApplicationFailure e) {
      // The SDK reports a missing target as an ApplicationFailure whose type is the cause
      // (SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND).
      // The node may run on its own (started by hand, or its NodeSet workflow is gone): the
      // report only matters to a NodeSet that listens.
      log.debug("no NodeSet workflow {} to report to", nodeSetWorkflowId);
      return false;
    }
  }
}
