package dev.tandem.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.k8s.KubeClients;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.NodeSetSpecs;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.NodeSummary;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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
 * revision, from the NodeSet workflow's query. Without a NodeSet, the NodeSets are listed from
 * Kubernetes (a kubeconfig is needed for that) and each is shown.
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

  @Option(
      names = "--kubeconfig",
      defaultValue = "${env:KUBECONFIG}",
      description = "kubeconfig used to list NodeSets when none is named (env KUBECONFIG)")
  String kubeconfig;

  @Override
  public Integer call() {
    checkNames();
    PrintWriter out = spec.commandLine().getOut();
    TemporalSession session = temporal.connect();
    try {
      session.requireWorker();
      List<NodeSetSnapshot> snaps = new ArrayList<>();
      List<String> missing = new ArrayList<>();
      for (String name : names()) {
        Optional<NodeSetSnapshot> s = NodeLookup.nodeSet(session, k8sNamespace, name);
        if (s.isPresent()) {
          snaps.add(s.get());
        } else {
          missing.add(name);
        }
      }
      if (nodeSet != null && snaps.isEmpty()) {
        throw new CliException(
            "no NodeSet '"
                + nodeSet
                + "' in namespace '"
                + k8sNamespace
                + "' (no workflow "
                + dev.tandem.workflows.Names.nodeSetWorkflowId(k8sNamespace, nodeSet)
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
      for (String m : missing) {
        out.printf(
            "NodeSet %s/%s: no workflow yet (is the Tandem worker running?)%n", k8sNamespace, m);
      }
      if (snaps.isEmpty() && missing.isEmpty()) {
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

  private List<String> names() {
    if (nodeSet != null) {
      return List.of(nodeSet);
    }
    try (KubernetesClient k8s = kubernetes()) {
      List<String> out = new ArrayList<>();
      for (GenericKubernetesResource r :
          NodeSetResources.generic(k8s).inNamespace(k8sNamespace).list().getItems()) {
        out.add(r.getMetadata().getName());
      }
      return out;
    } catch (CliException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new CliException(
          "cannot list NodeSets from Kubernetes ("
              + e.getMessage()
              + "): name one (tandem status gpu-a) or pass --kubeconfig");
    }
  }

  private KubernetesClient kubernetes() {
    if (kubeconfig == null) {
      return KubeClients.build(Config.autoConfigure(null));
    }
    try {
      return KubeClients.build(
          Config.fromKubeconfig(null, Files.readString(Path.of(kubeconfig)), kubeconfig));
    } catch (java.io.IOException e) {
      throw new CliException("cannot read kubeconfig " + kubeconfig + ": " + e.getMessage());
    }
  }
}
