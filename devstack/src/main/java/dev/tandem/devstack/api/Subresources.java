package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.ApiException.Cause;
import dev.tandem.devstack.api.Store.Stored;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.List;

/**
 * {@code pods/{name}/binding} (and the {@code bindings} collection), {@code pods/{name}/eviction}
 * and the {@code scale} subresource of CRDs that declare it — each with the real API's checks.
 */
final class Subresources {
  private final Store store;
  private final ResourceCatalog catalog;
  private final Writes writes;
  private final Evictions evictions;

  Subresources(
      Store store,
      ResourceCatalog catalog,
      Writes writes,
      Deletes deletes,
      DisruptionBudgets budgets) {
    this.evictions = new Evictions(store, catalog, deletes, budgets);
    this.store = store;
    this.catalog = catalog;
    this.writes = writes;
  }

  private ResourceType pods() {
    return catalog.require("", "v1", "pods");
  }

  /** POST pods/{name}/binding ({@code podName} set) or POST bindings (name from the body). */
  MockResponse bind(ApiRequest req, String podName) {
    ObjectNode b = Json.parseObject(req.body);
    String bodyName = Json.text(b, "metadata", "name");
    String name = podName != null ? podName : bodyName;
    ResourceType bindingType = catalog.require("", "v1", "bindings");
    if (podName != null && bodyName != null && !bodyName.isEmpty() && !bodyName.equals(podName)) {
      throw ApiException.badRequest("name in URL does not match name in Binding object");
    }
    if (name == null || name.isEmpty()) {
      throw ApiException.invalid(bindingType, null, List.of(Cause.required("metadata.name")));
    }
    String target = Json.text(b, "target", "name");
    String targetKind = Json.text(b, "target", "kind");
    if (target == null || target.isEmpty()) {
      throw ApiException.invalid(bindingType, name, List.of(Cause.required("target.name")));
    }
    if (targetKind != null && !targetKind.isEmpty() && !targetKind.equals("Node")) {
      throw ApiException.invalid(
          bindingType,
          name,
          List.of(
              new Cause(
                  "target.kind",
                  "FieldValueNotSupported",
                  "Unsupported value: "
                      + Json.quote(targetKind)
                      + ": supported values: \"Node\"")));
    }
    ResourceType pods = pods();
    Stored pod = store.get(pods, req.namespace, name);
    if (pod == null) {
      throw ApiException.notFound(pods, name);
    }
    ResourceType podBinding = bindingConflictType();
    String uid = Json.text(b, "metadata", "uid");
    if (uid != null && !uid.isEmpty() && !uid.equals(pod.uid())) {
      throw ApiException.conflict(
          podBinding,
          name,
          "Precondition failed: UID in precondition: "
              + uid
              + ", UID in object meta: "
              + pod.uid());
    }
    if (Json.text(pod.obj(), "metadata", "deletionTimestamp") != null) {
      throw ApiException.conflict(
          podBinding, name, "pod " + name + " is being deleted, cannot be assigned to a host");
    }
    String current = Json.text(pod.obj(), "spec", "nodeName");
    if (current != null && !current.isEmpty()) {
      throw ApiException.conflict(
          podBinding, name, "pod " + name + " is already assigned to node " + Json.quote(current));
    }
    ObjectNode next = pod.obj().deepCopy();
    Json.child(next, "spec").put("nodeName", target);
    JsonNode ann = Json.at(b, "metadata", "annotations");
    if (ann != null && ann.isObject()) {
      Json.child(Json.meta(next), "annotations").setAll((ObjectNode) ann);
    }
    setCondition(next, "PodScheduled", "True");
    ManagedFields.record(pod.obj(), next, ManagedFields.manager(req), "v1", "binding");
    if (!req.dryRun()) {
      store.update(pods, pod, next);
    }
    return Responses.json(201, ApiException.success(201));
  }

  /** Conflicts on a binding name the resource {@code pods/binding}, as the API server does. */
  private static ResourceType bindingConflictType() {
    return new ResourceType(
        "",
        "v1",
        "pods/binding",
        "",
        "Binding",
        true,
        List.of(),
        List.of(),
        false,
        null,
        java.util.Set.of(),
        null,
        false,
        false,
        false,
        true,
        List.of());
  }

  static void setCondition(ObjectNode pod, String type, String status) {
    ObjectNode st = Json.child(pod, "status");
    ArrayNode conds =
        st.has("conditions") ? (ArrayNode) st.get("conditions") : st.putArray("conditions");
    for (JsonNode c : conds) {
      if (type.equals(c.path("type").asText())) {
        if (!status.equals(c.path("status").asText())) {
          ((ObjectNode) c).put("status", status).put("lastTransitionTime", Json.now());
        }
        return;
      }
    }
    conds
        .addObject()
        .put("type", type)
        .put("status", status)
        .putNull("lastProbeTime")
        .put("lastTransitionTime", Json.now());
  }

  /** POST pods/{name}/eviction: see {@link Evictions}. */
  MockResponse evict(ApiRequest req) {
    return evictions.evict(req);
  }

  MockResponse getScale(ResourceType t, ApiRequest req) {
    return Responses.json(200, scaleOf(t, store.require(t, req).obj()));
  }

  /** PUT or PATCH of {@code scale}: only {@code spec.replicas} reaches the custom resource. */
  MockResponse writeScale(ResourceType t, ApiRequest req) {
    Stored cur = store.require(t, req);
    ObjectNode currentScale = scaleOf(t, cur.obj());
    ObjectNode wanted =
        "PUT".equals(req.method) ? Json.parseObject(req.body) : patchScale(currentScale, req);
    Writes.checkPrecondition(t, cur, Json.text(wanted, "metadata", "resourceVersion"));
    JsonNode replicas = Json.at(wanted, "spec", "replicas");
    ResourceType scaleType = scaleType();
    if (replicas == null || !replicas.isIntegralNumber()) {
      throw ApiException.invalid(scaleType, cur.name(), List.of(Cause.required("spec.replicas")));
    }
    if (replicas.asLong() < 0) {
      throw ApiException.invalid(
          scaleType,
          cur.name(),
          List.of(
              Cause.invalid(
                  "spec.replicas",
                  "Invalid value: " + replicas.asLong() + ": must be greater than or equal to 0")));
    }
    ObjectNode next = cur.obj().deepCopy();
    Json.setDotted(next, t.scale().specReplicasPath(), Json.F.numberNode(replicas.asLong()));
    MockResponse r = writes.commit(t, cur, next, req);
    Stored after = store.get(t, cur.namespace(), cur.name());
    return Responses.json(r.code(), scaleOf(t, after == null ? next : after.obj()));
  }

  private static ObjectNode patchScale(ObjectNode currentScale, ApiRequest req) {
    String sub = req.mediaSubtype();
    if (Patches.JSON_PATCH.equals(sub)) {
      return Patches.jsonPatch(currentScale, req.body);
    }
    if (Patches.MERGE_PATCH.equals(sub) || Patches.STRATEGIC.equals(sub)) {
      // Scale has no lists, so a strategic merge patch is a merge patch here.
      return (ObjectNode) Patches.mergePatch(currentScale.deepCopy(), Json.parseObject(req.body));
    }
    throw ApiException.unsupportedMediaType("unsupported patch type for scale: " + req.contentType);
  }

  private static ResourceType scaleType() {
    return new ResourceType(
        "autoscaling",
        "v1",
        "scale",
        "",
        "Scale",
        true,
        List.of(),
        List.of(),
        false,
        null,
        java.util.Set.of(),
        null,
        false,
        false,
        false,
        false,
        List.of());
  }

  static ObjectNode scaleOf(ResourceType t, ObjectNode obj) {
    ObjectNode s = Json.object();
    s.put("kind", "Scale");
    s.put("apiVersion", "autoscaling/v1");
    ObjectNode m = s.putObject("metadata");
    for (String k : List.of("name", "namespace", "uid", "resourceVersion", "creationTimestamp")) {
      JsonNode v = Json.meta(obj).get(k);
      if (v != null) {
        m.set(k, v);
      }
    }
    JsonNode spec = Json.atDotted(obj, t.scale().specReplicasPath());
    s.putObject("spec").put("replicas", spec == null ? 0 : spec.asLong());
    ObjectNode status = s.putObject("status");
    JsonNode st = Json.atDotted(obj, t.scale().statusReplicasPath());
    status.put("replicas", st == null ? 0 : st.asLong());
    if (t.scale().labelSelectorPath() != null) {
      JsonNode sel = Json.atDotted(obj, t.scale().labelSelectorPath());
      if (sel != null && !sel.isNull()) {
        status.put("selector", sel.asText());
      }
    }
    return s;
  }
}
