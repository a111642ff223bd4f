package dev.tandem.cli;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.NodeSummary;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowNotFoundException;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Finds a node's workflow from what a user types ({@code gpu-a-1} or {@code team-x/gpu-a-1}) by
 * querying entity workflows (no visibility listing: the local Temporal has none). When the node
 * does not exist, its NodeSet is asked for close matches.
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

  static NodeLifecycleWorkflow stub(WorkflowClient client, Target t) {
    return client.newWorkflowStub(NodeLifecycleWorkflow.class, t.workflowId());
  }

  /** The node's status, or a {@link CliException} that says what exists instead. */
  static NodeStatus status(WorkflowClient client, Target t) {
    try {
      return stub(client, t).status();
    } catch (WorkflowNotFoundException e) {
      throw new CliException(notFound(client, t));
    } catch (WorkflowException e) {
      if (notFound(e)) {
        throw new CliException(notFound(client, t));
      }
      if (unreachable(e)) {
        throw e; // TandemCli says "cannot reach Temporal" and how to point at it
      }
      throw new CliException("cannot query " + t.workflowId() + ": " + e.getMessage());
    }
  }

  /** The NodeSet's snapshot, if its workflow exists. */
  static Optional<NodeSetSnapshot> nodeSet(WorkflowClient client, String namespace, String name) {
    try {
      return Optional.of(
          client
              .newWorkflowStub(NodeSetWorkflow.class, Names.nodeSetWorkflowId(namespace, name))
              .status());
    } catch (WorkflowException e) {
      if (notFound(e)) {
        return Optional.empty();
      }
      if (unreachable(e)) {
        throw e;
      }
      throw new CliException(
          "cannot query " + Names.nodeSetWorkflowId(namespace, name) + ": " + e.getMessage());
    }
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

  static String notFound(WorkflowClient client, Target t) {
    String base = "no Tandem node '" + t.pod() + "' in namespace '" + t.namespace() + "'";
    String set = nodeSetOf(t.pod());
    Optional<NodeSetSnapshot> snap =
        set == null ? Optional.empty() : nodeSet(client, t.namespace(), set);
    if (snap.isEmpty()) {
      return base
          + (set == null ? "" : " (and no NodeSet '" + set + "' there)")
          + ". Node names are pod names: see `tandem status <nodeset>` or "
          + "`kubectl get pods -l tandem.dev/nodeset`.";
    }
    List<String> close =
        snap.get().nodes().stream()
            .map(NodeSummary::pod)
            .sorted(Comparator.comparingInt(p -> distance(p, t.pod())))
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

  /** Levenshtein distance, for suggestions. */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
