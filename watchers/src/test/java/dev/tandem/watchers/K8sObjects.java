package dev.tandem.watchers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;

/** Kubernetes objects as the watcher tests create them, on the mock API or the local one. */
final class K8sObjects {
  private K8sObjects() {}

  /**
   * A pod the watchers select (NodeSet label {@code gpu}, container {@code slurmd}) in namespace
   * default, bound to {@code node} (null: not bound yet). Tests add status, labels or annotations.
   */
  static PodBuilder slurmdPod(String name, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .addToLabels("tandem.dev/nodeset", "gpu")
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewContainer()
        .withName("slurmd")
        .withImage("slurmd")
        .endContainer()
        .endSpec();
  }

  /** A Kubernetes node with only a name: schedulable, no conditions. */
  static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  /** A NodeSet in namespace default; {@code yamlSpec} is its spec's YAML, indented two spaces. */
  static GenericKubernetesResource nodeSet(String name, String yamlSpec) {
    String yaml =
        "apiVersion: tandem.dev/v1alpha1\nkind: NodeSet\nmetadata:\n  name: "
            + name
            + "\n  namespace: default\nspec:\n"
            + yamlSpec;
    return Serialization.unmarshal(yaml, GenericKubernetesResource.class);
  }
}
