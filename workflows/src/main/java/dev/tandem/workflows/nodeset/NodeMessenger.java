package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.node.NodeLifecycleInput;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.support.SearchAttributes;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.ParentClosePolicy;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.common.SearchAttributes.Builder;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Promise;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;

/**
 * How the NodeSet workflow talks to its node workflows: starts them as children that outlive it
 * (parent close policy ABANDON, so a continue-as-new or the NodeSet's end never kills a node
 * mid-drain) and signals them by workflow id.
 */
final class NodeMessenger {
  private static final Logger log = Workflow.getLogger(NodeMessenger.class);

  private NodeMessenger() {}

  /** A node workflow start in flight. */
  record Start(NodeRef ref, Promise<WorkflowExecution> started) {}

  static Start start(NodeLifecycleInput in, boolean searchAttributes) {
    NodeRef ref = in.ref();
    ChildWorkflowOptions.Builder o =
        ChildWorkflowOptions.newBuilder()
            .setWorkflowId(ref.workflowId())
            .setTaskQueue(Names.TASK_QUEUE)
            .setParentClosePolicy(ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON)
            .setWorkflowIdReusePolicy(
                WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
            .setStaticSummary(
                "Slurm node " + ref.pod() + " of NodeSet " + ref.namespace() + "/" + ref.nodeSet());
    if (searchAttributes) {
      Builder sa = io.temporal.common.SearchAttributes.newBuilder();
      sa.set(SearchAttributes.NODE, ref.pod());
      sa.set(SearchAttributes.NODESET, ref.namespace() + "/" + ref.nodeSet());
      o.setTypedSearchAttributes(sa.build());
    }
    NodeLifecycleWorkflow child =
        Workflow.newChildWorkflowStub(NodeLifecycleWorkflow.class, o.build());
    Async.function(child::run, in);
    return new Start(ref, Workflow.getWorkflowExecution(child));
  }

  /** How a start ended: the node workflow runs now, and whether it was already running. */
  record Started(NodeRef ref, boolean found) {}

  /**
   * Waits for the starts; returns the refs whose workflow runs now (started, or already running, in
   * which case it is asked to report).
   */
  static List<Started> awaitStarts(List<Start> starts) {
    List<Started> running = new ArrayList<>();
    for (Start st : starts) {
      try {
        st.started().get();
        running.add(new Started(st.ref(), false));
      } catch (ChildWorkflowFailure e) {
        if (e.getCause() instanceof WorkflowExecutionAlreadyStarted) {
          resync(st.ref());
          running.add(new Started(st.ref(), true));
        } else {
          log.warn("could not start node workflow {}: {}", st.ref().workflowId(), e.getMessage());
        }
      }
    }
    return running;
  }

  /** Signals; false if the node workflow does not exist (any more). */
  static boolean delete(NodeRef ref, NodeCommand c) {
    return send(ref, w -> w.delete(c));
  }

  static boolean resync(NodeRef ref) {
    return send(ref, NodeLifecycleWorkflow::resync);
  }

  /**
   * Sends one signal to each node at once and waits for all: the signals leave in one workflow
   * task. Sent one after the other, each would wait for its own round trip through the server
   * before the next left: a rolling update's wave of 100 nodes would take 100 round trips. Answers,
   * in the order of {@code refs}, whether each node workflow was there.
   */
  static List<Boolean> sendAll(
      List<NodeRef> refs, java.util.function.Consumer<NodeLifecycleWorkflow> f) {
    List<Promise<Void>> sent = new ArrayList<>();
    for (NodeRef ref : refs) {
      NodeLifecycleWorkflow w =
          Workflow.newExternalWorkflowStub(NodeLifecycleWorkflow.class, ref.workflowId());
      sent.add(Async.procedure(() -> f.accept(w)));
    }
    List<Boolean> out = new ArrayList<>();
    for (int i = 0; i < refs.size(); i++) {
      try {
        sent.get(i).get();
        out.add(true);
      } catch (SignalExternalWorkflowException | ApplicationFailure e) {
        log.info("node workflow {} is not running: {}", refs.get(i).workflowId(), e.getMessage());
        out.add(false);
      }
    }
    return out;
  }

  static boolean send(NodeRef ref, java.util.function.Consumer<NodeLifecycleWorkflow> f) {
    try {
      f.accept(Workflow.newExternalWorkflowStub(NodeLifecycleWorkflow.class, ref.workflowId()));
      return true;
    } catch (SignalExternalWorkflowException | ApplicationFailure e) {
      // A missing target arrives as an ApplicationFailure typed with the cause, e.g.
      // SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND.
      log.info("node workflow {} is not running: {}", ref.workflowId(), e.getMessage());
      return false;
    }
  }
}
