package dev.tandem.watchers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * Kubernetes objects as the watcher tests create them; namespaced ones take the client's namespace.
 */
final class K8sObjects {
  private K8sObjects() {}

  /**
   * A scheduler no test runs: a pod waiting for it stays as created (kube-scheduler would write
   * PodScheduled=False into the status of a pod it cannot place).
   */
  static final String NO_SCHEDULER = "tandem-test-unscheduled";

  /**
   * A pod the watchers select (NodeSet label {@code gpu}, container {@code slurmd}), bound to
   * {@code node} (null: waiting for {@link #NO_SCHEDULER}). Tests add status, labels or
   * annotations. A bound pod's Node should exist: the pod garbage collector deletes pods on Nodes
   * that stay missing for 40 s.
   */
  static PodBuilder slurmdPod(String name, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .addToLabels("tandem.dev/nodeset", "gpu")
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .withSchedulerName(node == null ? NO_SCHEDULER : null)
        .addNewContainer()
        .withName("slurmd")
        .withImage("slurmd")
        .endContainer()
        .endSpec();
  }

  /** {@code object} in {@code namespace}, as read from the API (for tests that call no API). */
  static <T extends HasMetadata> T in(String namespace, T object) {
    object.getMetadata().setNamespace(namespace);
    return object;
  }

  /** A Kubernetes node with only a name: schedulable, no conditions. */
  static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  /** A NodeSet; {@code yamlSpec} is its spec's YAML, indented two spaces. */
  static GenericKubernetesResource nodeSet(String name, String yamlSpec) {
    String yaml =
        "apiVersion: tandem.dev/v1alpha1\nkind: NodeSet\nmetadata:\n  name: "
            + name
            + "\nspec:\n"
            + yamlSpec;
    return Serialization.unmarshal(yaml, GenericKubernetesResource.class);
  }
}
