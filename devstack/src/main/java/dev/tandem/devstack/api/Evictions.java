package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.Store.Stored;
import io.fabric8.mockwebserver.http.MockResponse;

/**
 * {@code pods/{name}/eviction} (policy/v1 Eviction) as the API server handles it:
 *
 * <ol>
 *   <li>404 for an unknown pod; 409 on a uid precondition mismatch.
 *   <li>A pod that is Pending, Succeeded, Failed or already deleting goes without consulting
 *       budgets.
 *   <li>Otherwise the one PodDisruptionBudget selecting it must allow a disruption ({@link
 *       DisruptionBudgets#admitEviction}): 429 TooManyRequests when it does not, 500 when several
 *       budgets select the pod.
 *   <li>The pod gets {@code DisruptionTarget=True} (reason {@code EvictionByEvictionAPI}) and is
 *       deleted with the Eviction's {@code deleteOptions} — gracefully when bound, so the kubelet
 *       stops it within its grace period and removes it.
 * </ol>
 */
final class Evictions {
  private final Store store;
  private final ResourceCatalog catalog;
  private final Deletes deletes;
  private final DisruptionBudgets budgets;

  Evictions(Store store, ResourceCatalog catalog, Deletes deletes, DisruptionBudgets budgets) {
    this.store = store;
    this.catalog = catalog;
    this.deletes = deletes;
    this.budgets = budgets;
  }

  private ResourceType pods() {
    return catalog.require("", "v1", "pods");
  }

  MockResponse evict(ApiRequest req) {
    ObjectNode e = Json.parseObject(req.body);
    String bodyName = Json.text(e, "metadata", "name");
    if (bodyName != null && !bodyName.isEmpty() && !bodyName.equals(req.name)) {
      throw ApiException.badRequest("name in URL does not match name in Eviction object");
    }
    ResourceType pods = pods();
    Stored pod = store.get(pods, req.namespace, req.name);
    if (pod == null) {
      throw ApiException.notFound(pods, req.name);
    }
    JsonNode opts = e.path("deleteOptions");
    DeleteOptions o = opts.isObject() ? DeleteOptions.from(opts, null) : DeleteOptions.DEFAULT;
    if (o.uid() != null && !o.uid().equals(pod.uid())) {
      throw ApiException.conflict(
          pods,
          req.name,
          "Precondition failed: UID in precondition: "
              + o.uid()
              + ", UID in object meta: "
              + pod.uid());
    }
    boolean dryRun = req.dryRun() || o.dryRun();
    if (!budgetsIgnored(pod.obj())) {
      budgets.admitEviction(pod, dryRun);
    }
    if (!dryRun) {
      // As the API server does since PodDisruptionConditions (GA in 1.31): say why it goes.
      ObjectNode marked = pod.obj().deepCopy();
      Subresources.setCondition(marked, "DisruptionTarget", "True");
      for (JsonNode c : marked.path("status").path("conditions")) {
        if ("DisruptionTarget".equals(c.path("type").asText())) {
          ((ObjectNode) c).put("reason", "EvictionByEvictionAPI");
          ((ObjectNode) c).put("message", "Eviction API: evicting");
        }
      }
      if (!marked.equals(pod.obj())) {
        store.update(pods, pod, marked);
        pod = store.get(pods, req.namespace, req.name);
      }
    }
    if (!dryRun) {
      Deletes.PODS.debug(
          "evict pod {}/{} (uid {}) by {}", req.namespace, req.name, pod.uid(), req.userAgent);
    }
    deletes.delete(pods, pod, o, dryRun);
    return Responses.json(201, ApiException.success(201));
  }

  /**
   * Pods that cannot lose availability (Pending, Succeeded, Failed) or are already going are
   * evicted without consulting budgets, as the API server does.
   */
  private static boolean budgetsIgnored(ObjectNode pod) {
    String phase = Json.text(pod, "status", "phase");
    return Json.text(pod, "metadata", "deletionTimestamp") != null
        || phase == null
        || phase.equals("Pending")
        || phase.equals("Succeeded")
        || phase.equals("Failed");
  }
}
