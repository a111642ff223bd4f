package dev.tandem.cli;

import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** The node a command acts on: {@code NODE} (a pod name, or ns/name) and {@code -k NAMESPACE}. */
final class NodeTargetOptions {
  /** A DNS label: Tandem's pod names ({@code <nodeset>-<ordinal>}) and namespaces are. */
  static final Pattern DNS_LABEL = Pattern.compile("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$");

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Parameters(index = "0", paramLabel = "NODE", description = "node (pod) name, or ns/name")
  String node;

  @Option(
      names = {"-k", "--k8s-namespace"},
      defaultValue = "${env:TANDEM_K8S_NAMESPACE:-default}",
      description = "Kubernetes namespace of the node's NodeSet (default ${DEFAULT-VALUE})")
  String k8sNamespace;

  /**
   * The target; a name that cannot be a Tandem node is a wrong command line (exit 2), said before
   * Temporal is asked anything.
   */
  NodeLookup.Target target() {
    NodeLookup.Target t = NodeLookup.parse(node, k8sNamespace);
    if (!DNS_LABEL.matcher(t.namespace()).matches()) {
      throw new ParameterException(
          mixee.commandLine(),
          "'"
              + t.namespace()
              + "' is not a Kubernetes namespace (lower-case letters, digits and '-', at most"
              + " 63)");
    }
    if (!DNS_LABEL.matcher(t.pod()).matches()) {
      throw new ParameterException(
          mixee.commandLine(),
          "'"
              + node
              + "' is not a node name: nodes are named like their pods, e.g. gpu-a-0 or"
              + " team-x/gpu-a-0 (lower-case letters, digits and '-')");
    }
    return t;
  }
}
