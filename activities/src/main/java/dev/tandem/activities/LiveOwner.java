package dev.tandem.activities;

import dev.tandem.k8s.NodeSetResources;
import dev.tandem.workflows.model.PodRequest;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * A slurmd pod is created only for a NodeSet that still exists and is not being deleted.
 *
 * <p>A node workflow can outlive its NodeSet: an operator who removed the NodeSet's finalizer and
 * its pods by hand while Tandem was down leaves node workflows behind. Recreating their pods would
 * start slurmd processes nobody manages, and the CRD anchor (docs/install.md) keeps the garbage
 * collector from removing them. So the create is refused (non-retryable; the node shows it as its
 * problem and tries again on its next pass, which changes nothing until the operator ends the
 * workflow as docs/runbook.md says). A NodeSet being deleted gets no new pods either: its nodes are
 * on their way out.
 *
 * <p>A NodeSet that was deleted and created again under the same name is a new object whose own
 * workflow adopts the pods by name and label; this check does not compare uids, so a node that
 * survived that still gets its pod rather than waiting for ever.
 */
final class LiveOwner {
  private LiveOwner() {}

  /** Throws a non-retryable rejection unless the request's NodeSet exists and is not deleting. */
  static void require(KubernetesClient client, PodRequest request, String what) {
    if (request.ownerUid() == null) {
      return; // no owner named: nothing to check against (no node workflow sends this today)
    }
    String ns = request.node().namespace();
    String name = request.node().nodeSet();
    GenericKubernetesResource owner =
        NodeSetResources.generic(client).inNamespace(ns).withName(name).get();
    String ref = "NodeSet " + ns + "/" + name;
    if (owner == null) {
      throw KubeCalls.rejected(
          what + ": " + ref + " no longer exists, so no pod is created for it");
    }
    if (owner.getMetadata().getDeletionTimestamp() != null) {
      throw KubeCalls.rejected(
          what + ": " + ref + " is being deleted, so no new pod is created for it");
    }
  }
}
