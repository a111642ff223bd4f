package dev.tandem.cli;

import dev.tandem.k8s.EditDistance;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.NodeSummary;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowNotFoundException;
import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Finds a node's workflow from what a user types ({@code gpu-a-1} or {@code team-x/gpu-a-1}): the
 * name is the workflow id, which is queried directly (never looked up in visibility, which may
 * lag). When the node does not exist, its NodeSet is asked for close matches.
 */
final class NodeLookup {
  private NodeLookup() {}

  record Target(String namespace, String pod) {
    String workflowId() {
      return Names.nodeWorkflowId(namespace, pod);
    }

    @Override
    public String toString() {
      return namespace + "/" + pod;
    }
  }

  static Target parse(String arg, String defaultNamespace) {
    if (arg == null || arg.isBlank()) {
      throw new CliException("a node name is required");
    }
    int slash = arg.indexOf('/');
    if (slash > 0 && slash < arg.length() - 1) {
      return new Target(arg.substring(0, slash), arg.substring(slash + 1));
    }
    return new Target(defaultNamespace, arg);
  }

  static NodeLifecycleWorkflow stub(TemporalSession session, Target t) {
    return session.client().newWorkflowStub(NodeLifecycleWorkflow.class, t.workflowId());
  }

  /** The node's status, or a {@link CliException} that says what exists instead. */
  static NodeStatus status(TemporalSession session, Target t) {
    try {
      return session.query(t.workflowId(), () -> stub(session, t).status());
    } catch (WorkflowNotFoundException e) {
      throw new CliException(notFound(session, t));
    } catch (WorkflowException e) {
      if (notFound(e)) {
        throw new CliException(notFound(session, t));
      }
      throw new CliException("cannot query " + t.workflowId() + ": " + why(e));
    }
  }

  /** The NodeSet's snapshot, if its workflow exists. */
  static Optional<NodeSetSnapshot> nodeSet(TemporalSession session, String namespace, String name) {
    String id = Names.nodeSetWorkflowId(namespace, name);
    try {
      return Optional.of(
          session.query(
              id, () -> session.client().newWorkflowStub(NodeSetWorkflow.class, id).status()));
    } catch (WorkflowException e) {
      if (notFound(e)) {
        return Optional.empty();
      }
      throw new CliException("cannot query " + id + ": " + why(e));
    }
  }

  /**
   * Without a worker to ask: the node's workflow must exist and run. Temporal answers that from its
   * own records ({@code DescribeWorkflowExecution}); a signal to it is then kept until a worker
   * returns.
   */
  static void requireRunning(TemporalSession session, Target t, String action) {
    Optional<WorkflowExecutionStatus> st = session.execution(t.workflowId());
    if (st.isEmpty()) {
      throw new CliException(notFound(session, t));
    }
    if (st.get() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED) {
      throw new CliException("node " + t + " is deleted: nothing to " + action);
    }
    if (st.get() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      String status =
          st.get().name().substring("WORKFLOW_EXECUTION_STATUS_".length()).toLowerCase(Locale.ROOT);
      throw new CliException(
          "node " + t + " has no running workflow (" + t.workflowId() + " is " + status + ")");
    }
  }

  /**
   * After a signal sent while no worker polls: it is recorded and takes effect when one returns.
   * Says so on stderr and returns 0, or fails when the user asked to wait for the effect.
   */
  static int recordedWithoutWorker(
      TemporalSession session, PrintWriter err, boolean wait, String what) {
    String noWorker = session.workers().noWorker(session.address());
    if (wait) {
      throw new CliException(
          what
              + " is recorded and takes effect when a worker polls again, so --wait cannot wait: "
              + noWorker);
    }
    err.println(
        "tandem: warning: "
            + what
            + " is recorded and takes effect when a worker polls again: "
            + noWorker);
    err.flush();
    return 0;
  }

  /** The server's answer if there is one (the SDK's own message only names the workflow). */
  private static String why(WorkflowException e) {
    io.grpc.StatusRuntimeException s = TemporalSession.status(e);
    return s != null ? s.getMessage() : e.getMessage();
  }

  /** The workflow does not exist (or has ended and is gone). */
  static boolean notFound(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof WorkflowNotFoundException) {
        return true;
      }
      if (c instanceof io.grpc.StatusRuntimeException sre
          && sre.getStatus().getCode() == io.grpc.Status.Code.NOT_FOUND) {
        return true;
      }
    }
    return false;
  }

  /** Temporal itself could not be reached or did not answer in time. */
  static boolean unreachable(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof io.grpc.StatusRuntimeException sre) {
        io.grpc.Status.Code code = sre.getStatus().getCode();
        return code == io.grpc.Status.Code.UNAVAILABLE
            || code == io.grpc.Status.Code.DEADLINE_EXCEEDED
            || code == io.grpc.Status.Code.UNAUTHENTICATED
            || code == io.grpc.Status.Code.PERMISSION_DENIED;
      }
    }
    return false;
  }

  static String notFound(TemporalSession session, Target t) {
    String base = "no Tandem node '" + t.pod() + "' in namespace '" + t.namespace() + "'";
    String set = nodeSetOf(t.pod());
    Optional<NodeSetSnapshot> snap = Optional.empty();
    if (set != null && session.workers().state() == WorkerPresence.State.GONE) {
      // No worker to ask for the NodeSet's nodes; Temporal still knows whether it exists.
      boolean exists = session.execution(Names.nodeSetWorkflowId(t.namespace(), set)).isPresent();
      return base
          + (exists ? "" : " (and no NodeSet '" + set + "' there)")
          + ". Node names are pod names: see `kubectl get pods -l tandem.dev/nodeset`.";
    }
    try {
      snap = set == null ? Optional.empty() : nodeSet(session, t.namespace(), set);
    } catch (TemporalSession.NoAnswer e) {
      return base + ". " + e.getMessage();
    }
    if (snap.isEmpty()) {
      return base
          + (set == null ? "" : " (and no NodeSet '" + set + "' there)")
          + ". Node names are pod names: see `tandem status <nodeset>` or "
          + "`kubectl get pods -l tandem.dev/nodeset`.";
    }
    List<String> close =
        snap.get().nodes().stream()
            .map(NodeSummary::pod)
            .sorted(Comparator.comparingInt(p -> EditDistance.between(p, t.pod())))
            .limit(3)
            .toList();
    return base
        + ". NodeSet '"
        + set
        + "' has "
        + snap.get().nodes().size()
        + " nodes"
        + (close.isEmpty() ? "." : "; did you mean: " + String.join(", ", close) + "?");
  }

  /** {@code gpu-a-12} → {@code gpu-a}; null if the name has no ordinal. */
  static String nodeSetOf(String pod) {
    int dash = pod.lastIndexOf('-');
    if (dash <= 0 || dash == pod.length() - 1) {
      return null;
    }
    for (int i = dash + 1; i < pod.length(); i++) {
      if (!Character.isDigit(pod.charAt(i))) {
        return null;
      }
    }
    return pod.substring(0, dash);
  }
}
