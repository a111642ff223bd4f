package dev.tandem.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.k8s.NodeSetSpecs;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.NodeSummary;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tandem status [NODESET]}: every node of a NodeSet with its phase, Slurm state, reason and
 * revision, from the NodeSet workflow's query. Without a NodeSet, every NodeSet of the namespace
 * whose workflow runs ({@code nodeset/<ns>/<name>}, listed from visibility) is shown, in name
 * order; one applied a moment ago may be missing until visibility has its workflow.
 *
 * <p>Conditions that say something is wrong ({@link Condition#needsAttention()}: Ready not True,
 * SlurmReachable or KubernetesReachable False or Unknown, Degraded or InvalidSpec True) come first,
 * above the node table, one line each with their status, reason and message; in JSON they are
 * repeated under {@code attention}.
 */
@Command(
    name = "status",
    description = "Show a NodeSet's nodes: phase, Slurm state, reason, revision.",
    mixinStandardHelpOptions = true)
final class StatusCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin TemporalOptions temporal;

  @Parameters(index = "0", arity = "0..1", paramLabel = "NODESET", description = "NodeSet name")
  String nodeSet;

  @Option(
      names = {"-k", "--k8s-namespace"},
      defaultValue = "${env:TANDEM_K8S_NAMESPACE:-default}",
      description = "Kubernetes namespace (default ${DEFAULT-VALUE})")
  String k8sNamespace;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "table",
      description = "table or json (default ${DEFAULT-VALUE})")
  Output.Format output;

  @Override
  public Integer call() {
    checkNames();
    PrintWriter out = spec.commandLine().getOut();
    TemporalSession session = temporal.connect();
    try {
      session.requireWorker();
      List<NodeSetSnapshot> snaps = new ArrayList<>();
      for (String name : names(session)) {
        NodeLookup.nodeSet(session, k8sNamespace, name).ifPresent(snaps::add);
      }
      if (nodeSet != null && snaps.isEmpty()) {
        throw new CliException(
            "no NodeSet '"
                + nodeSet
                + "' in namespace '"
                + k8sNamespace
                + "' (no workflow "
                + Names.nodeSetWorkflowId(k8sNamespace, nodeSet)
                + "). Is the Tandem worker running, and was the NodeSet applied?");
      }
      if (output == Output.Format.json) {
        List<ObjectNode> docs = snaps.stream().map(StatusCommand::json).toList();
        out.println(Output.json(nodeSet != null ? docs.get(0) : docs));
        return 0;
      }
      for (NodeSetSnapshot s : snaps) {
        out.print(render(s));
      }
      if (snaps.isEmpty()) {
        out.printf("no NodeSets in namespace %s%n", k8sNamespace);
      }
      return 0;
    } finally {
      session.close();
    }
  }

  /** Names that cannot exist are a wrong command line (exit 2), said before Temporal is asked. */
  private void checkNames() {
    if (!NodeTargetOptions.DNS_LABEL.matcher(k8sNamespace).matches()) {
      throw new ParameterException(
          spec.commandLine(),
          "'"
              + k8sNamespace
              + "' is not a Kubernetes namespace (lower-case letters, digits and '-', at most"
              + " 63)");
    }
    if (nodeSet != null
        && (nodeSet.length() > NodeSetSpecs.MAX_NAME_LENGTH
            || !NodeTargetOptions.DNS_LABEL.matcher(nodeSet).matches())) {
      throw new ParameterException(
          spec.commandLine(),
          "'"
              + nodeSet
              + "' is not a NodeSet name (lower-case letters, digits and '-', at most "
              + NodeSetSpecs.MAX_NAME_LENGTH
              + ")");
    }
  }

  static String render(NodeSetSnapshot s) {
    NodeSetStatusView st = s.status();
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            "NodeSet %s: %d/%d ready, %d at revision %s%s%n",
            s.ref(),
            st.readyReplicas(),
            s.desiredReplicas(),
            st.updatedReplicas(),
            st.updateRevision(),
            s.deleting() ? " (deleting)" : ""));
    if (s.status() != null) {
      s.status().conditions().stream()
          .filter(c -> Condition.AUTOSCALED.equals(c.type()))
          .forEach(c -> b.append("  Autoscaled: ").append(c.message()).append('\n'));
    }
    for (Condition c : attention(s)) {
      b.append("  ! ")
          .append(c.type())
          .append('=')
          .append(c.status())
          .append(c.reason() == null ? "" : " (" + c.reason() + ")")
          .append(": ")
          .append(c.message() == null ? "" : c.message().replace('\n', ' '))
          .append('\n');
    }
    if (!s.rejectedSignals().isEmpty()) {
      var last = s.rejectedSignals().get(s.rejectedSignals().size() - 1);
      b.append("  SignalsRejected: ")
          .append(s.rejectedSignals().size())
          .append(", latest at ")
          .append(Output.time(last.at()))
          .append(": ")
          .append(last.detail())
          .append(" (all: -o json)\n");
    }
    List<List<String>> rows = new ArrayList<>();
    for (NodeSummary n : s.nodes()) {
      rows.add(
          List.of(
              n.pod(),
              n.phase().label(),
              n.slurmState(),
              n.reason() == null ? "" : n.reason(),
              n.revision() == null ? "" : n.revision(),
              n.k8sNode() == null ? "" : n.k8sNode(),
              n.problem() == null ? "" : n.problem()));
    }
    b.append(
        Table.render(
            List.of("NODE", "PHASE", "SLURM", "REASON", "REVISION", "K8S-NODE", "PROBLEM"), rows));
    return b.toString();
  }

  /** The conditions that say something is wrong, in the order the NodeSet lists them. */
  static List<Condition> attention(NodeSetSnapshot s) {
    return s.status() == null
        ? List.of()
        : s.status().conditions().stream().filter(Condition::needsAttention).toList();
  }

  /** The query's answer as JSON, plus {@code attention}: the conditions that need it. */
  static ObjectNode json(NodeSetSnapshot s) {
    ObjectNode o = Output.JSON.valueToTree(s);
    o.set("attention", Output.JSON.valueToTree(attention(s)));
    return o;
  }

  /** The NodeSet named, or those whose workflow runs in the namespace, in name order. */
  private List<String> names(TemporalSession session) {
    if (nodeSet != null) {
      return List.of(nodeSet);
    }
    String prefix = Names.nodeSetWorkflowId(k8sNamespace, "");
    return session
        .list(
            "WorkflowType = '"
                + Names.TYPE_NODESET
                + "' AND ExecutionStatus = 'Running' AND WorkflowId STARTS_WITH '"
                + prefix
                + "'")
        .stream()
        .map(w -> w.getExecution().getWorkflowId().substring(prefix.length()))
        .sorted()
        .toList();
  }
}
