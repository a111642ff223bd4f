package dev.tandem.activities;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.workflows.Names;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.Map;
import java.util.Objects;

/**
 * Writes to Node objects, as JSON merge patches (what {@code kubectl annotate} and {@code kubectl
 * patch --type merge} send): only the named annotations and fields change, so a concurrent writer
 * of other fields (the kubelet's status, a label controller) is never undone.
 */
final class NodeWrites {
  /** The annotation an administrator's cordon carries its reason in (docs/concepts.md). */
  static final String CORDON_REASON = Names.PREFIX + "cordon-reason";

  private final KubernetesClient client;

  NodeWrites(KubernetesClient client) {
    this.client = client;
  }

  /** The node, or an activity failure (retried) if it cannot be read; null if absent. */
  Node get(String name) {
    return KubeCalls.call("get node " + name, () -> RemediationTargets.getNode(client, name));
  }

  /**
   * Sets {@code annotations} (a null value removes one) unless they already have these values.
   * Returns false if the node does not exist.
   */
  boolean annotate(String name, Map<String, String> annotations) {
    Node n = get(name);
    if (n == null) {
      return false;
    }
    Map<String, String> have =
        n.getMetadata().getAnnotations() == null ? Map.of() : n.getMetadata().getAnnotations();
    boolean same =
        annotations.entrySet().stream()
            .allMatch(e -> Objects.equals(have.get(e.getKey()), e.getValue()));
    if (same) {
      return true;
    }
    ObjectNode patch = JsonNodeFactory.instance.objectNode();
    ObjectNode a = patch.putObject("metadata").putObject("annotations");
    annotations.forEach(a::put);
    return patch(name, patch, "annotate node " + name);
  }

  /** {@code kubectl cordon} plus the reason annotation; false if the node does not exist. */
  boolean cordon(String name, String reason) {
    Node n = get(name);
    if (n == null) {
      return false;
    }
    boolean cordoned = n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable());
    String have =
        n.getMetadata().getAnnotations() == null
            ? null
            : n.getMetadata().getAnnotations().get(CORDON_REASON);
    if (cordoned && have != null) {
      // Keep an administrator's reason (or ours from an earlier attempt): it was there first.
      return true;
    }
    ObjectNode patch = JsonNodeFactory.instance.objectNode();
    patch.putObject("spec").put("unschedulable", true);
    if (have == null) {
      patch.putObject("metadata").putObject("annotations").put(CORDON_REASON, reason);
    }
    return patch(name, patch, "cordon node " + name);
  }

  /** Deletes the Node object (absent already is fine). */
  void delete(String name) {
    KubeCalls.call(
        "delete node " + name,
        () -> {
          try {
            client.nodes().withName(name).delete();
          } catch (KubernetesClientException e) {
            if (!KubeCalls.is(e, 404)) {
              throw e;
            }
          }
          return null;
        });
  }

  private boolean patch(String name, ObjectNode patch, String what) {
    return KubeCalls.call(
        what,
        () -> {
          try {
            client
                .nodes()
                .resource(KubeRefs.node(name))
                .patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
            return true;
          } catch (KubernetesClientException e) {
            if (KubeCalls.is(e, 404)) {
              return false;
            }
            throw e;
          }
        });
  }
}
