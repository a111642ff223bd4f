package dev.tandem.activities;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;

/**
 * Bare objects (name and namespace only) to patch through: fabric8 7.8's {@code
 * withName(n).patch(context, String)} reads the object from the server first ({@code
 * getItemOrRequireFromServer}) only to learn the name and namespace it was given, one GET more per
 * patch. {@code resource(ref).patch(context, String)} sends the PATCH alone; the patch's own
 * preconditions (resourceVersion, uid) guard it as before, and a missing object still answers 404.
 */
final class KubeRefs {
  private KubeRefs() {}

  static Pod pod(String namespace, String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .build();
  }

  static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }
}
