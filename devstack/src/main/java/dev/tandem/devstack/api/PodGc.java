package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.Store.Stored;

/**
 * kube-controller-manager's pod garbage collector ({@code podgc}), its orphan part: a pod bound to
 * a node that no longer exists is deleted. As the real one (Kubernetes 1.26+) it first marks a pod
 * that has not finished {@code Failed} with condition {@code DisruptionTarget=True} (reason {@code
 * DeletionByPodGC}), then deletes it with grace 0: no kubelet is left to stop it. Run by the {@link
 * GarbageCollector}'s worker when a Node is removed (the real controller finds the same pods on its
 * next pass, after a quarantine of a few seconds); a node recreated under that name in between
 * keeps its pods.
 */
final class PodGc {
  private final Store store;
  private final Deletes deletes;
  private final ResourceType pods;
  private final ResourceType nodes;

  PodGc(Store store, ResourceCatalog catalog, Deletes deletes) {
    this.store = store;
    this.deletes = deletes;
    this.pods = catalog.require("", "v1", "pods");
    this.nodes = catalog.require("", "v1", "nodes");
  }

  static boolean isNode(ResourceType t) {
    return t.group().isEmpty() && t.plural().equals("nodes");
  }

  /** Deletes the pods bound to {@code node}, if it is still gone. Under the write lock. */
  void collect(String node) {
    if (store.get(nodes, null, node) != null) {
      return;
    }
    for (Stored p : store.list(pods, null)) {
      if (!node.equals(Json.text(p.obj(), "spec", "nodeName"))) {
        continue;
      }
      Stored cur = markFailed(p);
      Deletes.PODS.debug("pod GC deletes {}/{}: node {} is gone", p.namespace(), p.name(), node);
      deletes.delete(pods, cur, new DeleteOptions(0L, null, null, p.uid(), null, false), false);
    }
  }

  private Stored markFailed(Stored p) {
    String phase = Json.text(p.obj(), "status", "phase");
    if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
      return p;
    }
    ObjectNode next = p.obj().deepCopy();
    ObjectNode status = next.with("status");
    status.put("phase", "Failed");
    ArrayNode conditions = status.withArray("conditions");
    for (int i = conditions.size() - 1; i >= 0; i--) {
      JsonNode c = conditions.get(i);
      if ("DisruptionTarget".equals(c.path("type").asText())) {
        conditions.remove(i);
      }
    }
    ObjectNode c = conditions.addObject();
    c.put("type", "DisruptionTarget");
    c.put("status", "True");
    c.put("reason", "DeletionByPodGC");
    c.put("message", "PodGC: node no longer exists");
    c.put("lastTransitionTime", Json.now());
    store.update(pods, p, next);
    return store.get(pods, p.namespace(), p.name());
  }
}
