package dev.tandem.cli;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeStatus;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tandem history NODE}: the node's timeline of transitions, oldest first. {@code tandem
 * history pod/[NS/]NAME} (or {@code schedule/NS/NAME/UID}): the same for a pod scheduled through
 * Slurm, from its scheduling workflow (see {@link PodHistory}). {@code tandem history K8S_NODE} (or
 * {@code remediation/K8S_NODE}): the timeline of a Kubernetes node's remediation (see {@link
 * RemediationHistory}), chosen when the name is no Tandem node; a Tandem node whose name is also a
 * remediated Kubernetes node's shows its own timeline and a note naming the other.
 */
@Command(
    name = "history",
    description = {
      "Show a node's timeline: every transition with its time and cause.",
      "For a pod scheduled through Slurm: tandem history pod/[NAMESPACE/]NAME, or the workflow id"
          + " schedule/NAMESPACE/NAME/UID; for a gang: group/[NAMESPACE/]GROUP,"
          + " schedule-group/NAMESPACE/GROUP, or a live member's pod/... .",
      "For a Kubernetes node's remediation: tandem history K8S_NODE (when no Tandem node has that"
          + " name), or tandem history remediation/K8S_NODE."
    },
    mixinStandardHelpOptions = true)
final class HistoryCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin TemporalOptions temporal;

  @Mixin NodeTargetOptions target;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "table",
      description = "table or json (default ${DEFAULT-VALUE})")
  Output.Format output;

  @Option(
      names = "--kubeconfig",
      defaultValue = "${env:KUBECONFIG}",
      description = "kubeconfig used to find a pod's uid (env KUBECONFIG)")
  String kubeconfig;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    if (PodHistory.isPod(target.node)) {
      return podHistory(out);
    }
    String k8sNode = remediationOnly(target.node);
    if (k8sNode != null) {
      try (TemporalSession session = temporal.connect()) {
        return RemediationHistory.print(session, k8sNode, out, output);
      }
    }
    NodeLookup.Target t = target.target();
    TemporalSession session = temporal.connect();
    try {
      session.requireWorker();
      boolean bare = !target.node.contains("/");
      String remediation = Names.remediationWorkflowId(target.node);
      if (bare && !exists(session, t.workflowId(), true) && exists(session, remediation, false)) {
        return RemediationHistory.print(session, target.node, out, output);
      }
      NodeStatus s = NodeLookup.status(session, t);
      Output.history(
          out,
          output,
          String.format(
              "%s: %s, revision %s%s",
              t,
              s.phase().label(),
              s.revision(),
              s.holds().isEmpty() ? "" : ", held by " + String.join(", ", s.holds().keySet())),
          "PHASE",
          s.timeline());
      if (output != Output.Format.json && bare && exists(session, remediation, false)) {
        out.printf(
            "note: Kubernetes node %s has a remediation too: tandem history %s%n",
            target.node, remediation);
      }
      return 0;
    } finally {
      session.close();
    }
  }

  /**
   * Whether the workflow exists; {@code otherwise} when the server does not say (it cannot
   * describe, e.g. a server without that method): then the node's own timeline is shown, as always.
   */
  private static boolean exists(TemporalSession session, String workflowId, boolean otherwise) {
    try {
      return session.execution(workflowId).isPresent();
    } catch (io.grpc.StatusRuntimeException e) {
      return otherwise;
    }
  }

  /**
   * The Kubernetes node whose remediation {@code arg} names without doubt: {@code
   * remediation/NAME}, or a name only a Kubernetes node can have (with a dot); else null.
   */
  private String remediationOnly(String arg) {
    String k8sNode;
    if (arg.startsWith(RemediationLookup.PREFIX)) {
      k8sNode = arg.substring(RemediationLookup.PREFIX.length());
    } else if (arg.indexOf('/') < 0
        && !NodeTargetOptions.DNS_LABEL.matcher(arg).matches()
        && RemediationLookup.validNode(arg)) {
      k8sNode = arg;
    } else {
      return null;
    }
    if (!RemediationLookup.validNode(k8sNode)) {
      throw new ParameterException(
          spec.commandLine(),
          "'"
              + k8sNode
              + "' is not a Kubernetes node name (lower-case letters, digits, '-' and '.')");
    }
    return k8sNode;
  }

  private int podHistory(PrintWriter out) {
    PodHistory.Target t;
    try {
      t = PodHistory.parse(target.node, target.k8sNamespace);
    } catch (IllegalArgumentException e) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    t = PodHistory.resolve(t, kubeconfig);
    TemporalSession session = temporal.connect();
    try {
      return PodHistory.print(session, t, out, output);
    } finally {
      session.close();
    }
  }
}
