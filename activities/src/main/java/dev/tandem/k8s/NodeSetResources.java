package dev.tandem.k8s;

import dev.tandem.k8s.api.NodeSet;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * Untyped access to NodeSets. Tandem reads and writes NodeSets as generic resources so that one
 * that does not match the Java classes (stored under an older CRD, or a field the schema leaves
 * open) can still get its status and lose its finalizer.
 */
public final class NodeSetResources {
  private NodeSetResources() {}

  public static final ResourceDefinitionContext CONTEXT =
      new ResourceDefinitionContext.Builder()
          .withGroup(NodeSet.GROUP)
          .withVersion(NodeSet.VERSION)
          .withKind(NodeSet.KIND)
          .withPlural(NodeSet.PLURAL)
          .withNamespaced(true)
          .build();

  public static MixedOperation<
          GenericKubernetesResource,
          io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      generic(KubernetesClient client) {
    return client.genericKubernetesResources(CONTEXT);
  }
}
