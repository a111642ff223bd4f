package dev.tandem.cli;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The node a command acts on: {@code NODE} (a pod name, or ns/name) and {@code -k NAMESPACE}. */
final class NodeTargetOptions {
  @Parameters(index = "0", paramLabel = "NODE", description = "node (pod) name, or ns/name")
  String node;

  @Option(
      names = {"-k", "--k8s-namespace"},
      defaultValue = "${env:TANDEM_K8S_NAMESPACE:-default}",
      description = "Kubernetes namespace of the node's NodeSet (default ${DEFAULT-VALUE})")
  String k8sNamespace;

  NodeLookup.Target target() {
    return NodeLookup.parse(node, k8sNamespace);
  }
}
