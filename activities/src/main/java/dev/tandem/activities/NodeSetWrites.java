package dev.tandem.activities;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.k8s.FinalizerPatch;
import dev.tandem.k8s.Json;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.NodeSetStatusDocs;
import dev.tandem.k8s.PodLabels;
import dev.tandem.k8s.api.NodeSet;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetStatusView;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes to NodeSets: the status subresource and the finalizer. NodeSets are handled as generic
 * resources so that a NodeSet the Java classes cannot read still gets its InvalidSpec condition.
 */
final class NodeSetWrites {
  private static final Logger log = LoggerFactory.getLogger(NodeSetWrites.class);

  private final KubernetesClient client;
  private final Clock clock;

  NodeSetWrites(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  /**
   * Writes {@code /status} only (never the main resource: a status write must not touch spec) with
   * a JSON patch that replaces the status object. No-op when the stored status already says the
   * same. (Strategic merge patch is not supported on custom resources.)
   */
  void writeStatus(NodeSetRef ref, NodeSetStatusView status) {
    String what = "write status of NodeSet " + ref;
    KubeCalls.withConflictRetry(
        what,
        () -> {
          Resource<GenericKubernetesResource> r = resource(ref);
          GenericKubernetesResource cur = r.get();
          if (cur == null) {
            log.info("{}: NodeSet is gone, nothing to write", what);
            return null;
          }
          JsonNode current = Json.MAPPER.valueToTree(cur.get("status"));
          ObjectNode desired = NodeSetStatusDocs.toJson(status, current, clock.instant());
          if (NodeSetStatusDocs.same(current, desired)) {
            return null;
          }
          ArrayNode patch = JsonNodeFactory.instance.arrayNode();
          patch
              .addObject()
              .put("op", "add") // "add" on an existing member replaces it; works when absent too
              .put("path", "/status")
              .set("value", NodeSetStatusDocs.merged(current, desired));
          try {
            read(ref, cur)
                .subresource("status")
                .patch(PatchContext.of(PatchType.JSON), Json.SERIALIZATION.asJson(patch));
          } catch (KubernetesClientException e) {
            if (KubeCalls.is(e, 404)) {
              return null; // deleted between the read and the write
            }
            throw e;
          }
          return null;
        });
  }

  /**
   * Sets {@code spec.replicas} of an autoscaled NodeSet to what its workflow decided, with a JSON
   * patch that tests the uid (a NodeSet created again under the name is not touched) and the
   * resourceVersion read. No-op when it says so already, or the NodeSet is gone or being deleted.
   */
  void setReplicas(NodeSetRef ref, String uid, int replicas) {
    String what = "set replicas of NodeSet " + ref + " to " + replicas;
    KubeCalls.withConflictRetry(
        what,
        () -> {
          GenericKubernetesResource cur = resource(ref).get();
          if (cur == null
              || cur.getMetadata().getDeletionTimestamp() != null
              || (uid != null && !uid.equals(cur.getMetadata().getUid()))) {
            return null;
          }
          JsonNode spec = Json.MAPPER.valueToTree(cur.get("spec"));
          if (spec != null
              && spec.path("replicas").isInt()
              && spec.path("replicas").asInt() == replicas) {
            return null;
          }
          ArrayNode patch = JsonNodeFactory.instance.arrayNode();
          patch
              .addObject()
              .put("op", "test")
              .put("path", "/metadata/resourceVersion")
              .put("value", cur.getMetadata().getResourceVersion());
          patch.addObject().put("op", "add").put("path", "/spec/replicas").put("value", replicas);
          try {
            read(ref, cur).patch(PatchContext.of(PatchType.JSON), Json.SERIALIZATION.asJson(patch));
          } catch (KubernetesClientException e) {
            if (KubeCalls.is(e, 404)) {
              return null;
            }
            throw e;
          }
          log.info("{}: done", what);
          return null;
        });
  }

  /**
   * Removes {@link NodeSet#FINALIZER} from a NodeSet that is being deleted. A NodeSet without a
   * deletionTimestamp keeps it: a NodeSet of the same name created again after a deletion must not
   * lose its protection to a late call about the old one.
   */
  void release(NodeSetRef ref) {
    String what = "remove finalizer of NodeSet " + ref;
    KubeCalls.withConflictRetry(
        what,
        () -> {
          Resource<GenericKubernetesResource> r = resource(ref);
          GenericKubernetesResource cur = r.get();
          if (cur == null) {
            return null;
          }
          List<String> finalizers = cur.getMetadata().getFinalizers();
          if (finalizers == null || !finalizers.contains(NodeSet.FINALIZER)) {
            return null;
          }
          if (cur.getMetadata().getDeletionTimestamp() == null) {
            log.warn("{}: not being deleted, keeping the finalizer", what);
            return null;
          }
          deleteBudget(ref, cur.getMetadata().getUid());
          List<String> rest = new ArrayList<>(finalizers);
          rest.removeIf(NodeSet.FINALIZER::equals);
          try {
            read(ref, cur)
                .patch(
                    PatchContext.of(PatchType.JSON),
                    FinalizerPatch.of(cur.getMetadata().getResourceVersion(), rest));
          } catch (KubernetesClientException e) {
            if (KubeCalls.is(e, 404)) {
              return null;
            }
            throw e;
          }
          log.info("{}: done", what);
          return null;
        });
  }

  /**
   * Deletes the NodeSet's PodDisruptionBudget (its pods are gone by now). The CRD anchor among its
   * owners keeps the garbage collector from deleting it while the NodeSet's nodes drain, so Tandem
   * deletes it here. Only this NodeSet's budget ({@link #budgetOf}): another one of that name is
   * left alone.
   */
  private void deleteBudget(NodeSetRef ref, String nodeSetUid) {
    var budget =
        client
            .policy()
            .v1()
            .podDisruptionBudget()
            .inNamespace(ref.namespace())
            .withName(PodLabels.budgetName(ref.name()));
    var pdb = budget.get();
    if (pdb == null || !budgetOf(pdb, ref, nodeSetUid)) {
      return;
    }
    try {
      budget.delete();
      log.info("deleted PodDisruptionBudget {}/{}", ref.namespace(), pdb.getMetadata().getName());
    } catch (KubernetesClientException e) {
      if (!KubeCalls.is(e, 404)) {
        throw e;
      }
    }
  }

  /**
   * Whether {@code pdb} is this NodeSet's budget: it names the NodeSet among its owners, or it
   * carries Tandem's labels for a NodeSet of this name and names no NodeSet at all. The second is
   * the budget of a NodeSet deleted with {@code --cascade=foreground} or {@code orphan}: the
   * garbage collector strips the NodeSet's reference from a dependent that has another owner (the
   * CRD anchor) or that it orphans, and the budget would outlive its NodeSet.
   */
  static boolean budgetOf(PodDisruptionBudget pdb, NodeSetRef ref, String nodeSetUid) {
    List<OwnerReference> owners =
        pdb.getMetadata().getOwnerReferences() == null
            ? List.of()
            : pdb.getMetadata().getOwnerReferences();
    if (owners.stream().anyMatch(o -> nodeSetUid != null && nodeSetUid.equals(o.getUid()))) {
      return true;
    }
    Map<String, String> labels =
        pdb.getMetadata().getLabels() == null ? Map.of() : pdb.getMetadata().getLabels();
    return PodLabels.MANAGED_BY_VALUE.equals(labels.get(PodLabels.MANAGED_BY))
        && ref.name().equals(labels.get(PodLabels.NODESET))
        && owners.stream().noneMatch(o -> NodeSet.KIND.equals(o.getKind()));
  }

  /**
   * The NodeSet just read, to patch through: a patch by name ({@link #resource}) makes fabric8 7.8
   * read the object again first ({@code KubeRefs}); the patch's own resourceVersion guards it.
   */
  private Resource<GenericKubernetesResource> read(NodeSetRef ref, GenericKubernetesResource cur) {
    return NodeSetResources.generic(client).inNamespace(ref.namespace()).resource(cur);
  }

  private Resource<GenericKubernetesResource> resource(NodeSetRef ref) {
    return NodeSetResources.generic(client).inNamespace(ref.namespace()).withName(ref.name());
  }
}
