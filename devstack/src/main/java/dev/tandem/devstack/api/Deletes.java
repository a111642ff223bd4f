package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.Store.Stored;
import io.fabric8.mockwebserver.http.MockResponse;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;

/**
 * Deletion as a real API server does it: finalizers hold an object (deletionTimestamp set), a pod
 * bound to a node is deleted gracefully (deletionTimestamp = now + grace; the kubelet stops it and
 * deletes it with grace 0), dependents are garbage-collected through ownerReferences (Background;
 * Orphan removes the reference; Foreground is treated as Background), a namespace takes its
 * contents with it, and a CRD its custom resources.
 */
final class Deletes {
  /** Parsed DeleteOptions (body and query). */
  record Options(
      Long gracePeriodSeconds,
      String propagation,
      String uid,
      String resourceVersion,
      boolean dryRun) {
    static final Options DEFAULT = new Options(null, null, null, null, false);

    static Options from(ApiRequest req) {
      if (req.body != null && !req.body.isBlank()) {
        return from(Json.parse(req.body), req);
      }
      Long grace =
          req.param("gracePeriodSeconds") == null
              ? null
              : parseGrace(req.param("gracePeriodSeconds"));
      return new Options(grace, req.param("propagationPolicy"), null, null, false);
    }

    static Options from(JsonNode b, ApiRequest req) {
      Long grace = null;
      if (b.hasNonNull("gracePeriodSeconds")) {
        grace = b.get("gracePeriodSeconds").asLong();
      } else if (req != null && req.param("gracePeriodSeconds") != null) {
        grace = parseGrace(req.param("gracePeriodSeconds"));
      }
      String propagation = b.path("propagationPolicy").asText(null);
      if (propagation == null && b.path("orphanDependents").asBoolean(false)) {
        propagation = "Orphan";
      }
      if (propagation == null && req != null) {
        propagation = req.param("propagationPolicy");
      }
      JsonNode pre = b.path("preconditions");
      boolean dryRun = false;
      for (JsonNode d : b.path("dryRun")) {
        if (!"All".equals(d.asText())) {
          throw ApiException.badRequest(
              "dryRun: Unsupported value: " + d + ": supported values: \"All\"");
        }
        dryRun = true;
      }
      return new Options(
          grace,
          propagation,
          pre.path("uid").asText(null),
          pre.path("resourceVersion").asText(null),
          dryRun);
    }

    private static Long parseGrace(String s) {
      try {
        return Long.parseLong(s);
      } catch (NumberFormatException e) {
        throw ApiException.badRequest("gracePeriodSeconds: Invalid value: " + Json.quote(s));
      }
    }
  }

  private final Store store;
  private final ResourceCatalog catalog;

  Deletes(Store store, ResourceCatalog catalog) {
    this.store = store;
    this.catalog = catalog;
  }

  MockResponse delete(ResourceType t, ApiRequest req) {
    Stored cur = store.get(t, req.namespace, req.name);
    if (cur == null) {
      throw ApiException.notFound(t, req.name);
    }
    Options o = Options.from(req);
    if (o.uid() != null && !o.uid().equals(cur.uid())) {
      throw ApiException.conflict(
          t,
          cur.name(),
          "Precondition failed: UID in precondition: "
              + o.uid()
              + ", UID in object meta: "
              + cur.uid());
    }
    if (o.resourceVersion() != null && !o.resourceVersion().equals(cur.resourceVersion())) {
      throw ApiException.conflict(
          t,
          cur.name(),
          "Precondition failed: ResourceVersion in precondition: "
              + o.resourceVersion()
              + ", ResourceVersion in object meta: "
              + cur.resourceVersion());
    }
    return Responses.json(200, delete(t, cur, o, req.dryRun() || o.dryRun()));
  }

  MockResponse deleteCollection(ResourceType t, ApiRequest req) {
    LabelSelector labels = LabelSelector.parse(req.param("labelSelector"));
    FieldSelector fields = FieldSelector.parse(req.param("fieldSelector"), t);
    Options o = Options.from(req);
    ObjectNode list = Json.object();
    list.put("kind", t.listKind()).put("apiVersion", t.apiVersion());
    ArrayNode items = list.putArray("items");
    for (Stored s : store.list(t, req.namespace)) {
      if (labels.matches(s.obj()) && fields.matches(s.obj())) {
        items.add(delete(t, s, o, req.dryRun() || o.dryRun()));
      }
    }
    list.putObject("metadata").put("resourceVersion", String.valueOf(store.currentRv()));
    return Responses.json(200, list);
  }

  /** Deletes (or starts deleting) one object; returns its state afterwards. */
  ObjectNode delete(ResourceType t, Stored cur, Options o, boolean dryRun) {
    ObjectNode obj = cur.obj().deepCopy();
    ObjectNode meta = Json.meta(obj);
    long grace = graceSeconds(t, obj, o);
    boolean hasFinalizers = meta.path("finalizers").size() > 0;
    boolean deleting = meta.hasNonNull("deletionTimestamp");
    if (t.kind().equals("Namespace") && t.group().isEmpty()) {
      return deleteNamespace(t, cur, o, dryRun);
    }
    if (deleting) {
      long current = meta.path("deletionGracePeriodSeconds").asLong(0);
      if (grace >= current && (hasFinalizers || current > 0)) {
        return obj; // already on its way out; nothing shortens it
      }
    }
    if (grace > 0 || hasFinalizers) {
      Instant at = Instant.now().plusSeconds(grace).truncatedTo(ChronoUnit.SECONDS);
      if (!deleting || grace < meta.path("deletionGracePeriodSeconds").asLong(0)) {
        meta.put("deletionTimestamp", at.toString());
      }
      meta.put("deletionGracePeriodSeconds", grace);
      if (!deleting && t.tracksGeneration()) {
        meta.put("generation", meta.path("generation").asLong(0) + 1);
      }
      if (!dryRun) {
        store.update(t, cur, obj);
      }
      return obj;
    }
    return dryRun ? obj : removeNow(t, cur, obj, o.propagation());
  }

  /** Seconds of grace: only a pod on a node that is not finished gets any. */
  static long graceSeconds(ResourceType t, ObjectNode obj, Options o) {
    if (!(t.group().isEmpty() && t.kind().equals("Pod"))) {
      return 0;
    }
    String node = Json.text(obj, "spec", "nodeName");
    String phase = Json.text(obj, "status", "phase");
    if (node == null || node.isEmpty() || "Succeeded".equals(phase) || "Failed".equals(phase)) {
      return 0;
    }
    long g =
        o.gracePeriodSeconds() != null
            ? o.gracePeriodSeconds()
            : obj.path("spec").path("terminationGracePeriodSeconds").asLong(30);
    return g < 0 ? 1 : g;
  }

  /** True when an object being deleted has nothing left that holds it. */
  static boolean finalizersDone(ResourceType t, ObjectNode obj) {
    ObjectNode meta = Json.meta(obj);
    return meta.hasNonNull("deletionTimestamp")
        && meta.path("finalizers").size() == 0
        && meta.path("deletionGracePeriodSeconds").asLong(0) == 0
        && !(t.kind().equals("Namespace") && t.group().isEmpty());
  }

  /** Removes the object for good, then collects what depended on it. */
  ObjectNode removeNow(ResourceType t, Stored cur, ObjectNode last, String propagation) {
    ObjectNode gone = store.remove(t, cur);
    String uid = cur.uid();
    if (t.kind().equals("CustomResourceDefinition")) {
      for (ResourceType crType : ResourceCatalog.fromCrd(cur.obj())) {
        for (Stored cr : store.list(crType, null)) {
          store.remove(crType, cr);
        }
      }
      catalog.setCrds(store.list(t, null).stream().map(Stored::obj).toList());
    }
    collectDependents(uid, propagation);
    if (t.namespaced()) {
      finishNamespaceIfEmpty(cur.namespace());
    }
    return last == null ? gone : last;
  }

  private void collectDependents(String uid, String propagation) {
    if (uid == null) {
      return;
    }
    for (Map.Entry<ResourceType, Stored> e : store.scan(uid)) {
      ResourceType dt = e.getKey();
      Stored dep = store.get(dt, e.getValue().namespace(), e.getValue().name());
      if (dep == null) {
        continue; // removed by an earlier step of this collection
      }
      JsonNode refs = Json.at(dep.obj(), "metadata", "ownerReferences");
      if (refs == null || !refs.isArray() || !references(refs, uid)) {
        continue;
      }
      if ("Orphan".equals(propagation)) {
        ObjectNode copy = dep.obj().deepCopy();
        ArrayNode kept = Json.F.arrayNode();
        refs.forEach(
            r -> {
              if (!uid.equals(r.path("uid").asText())) {
                kept.add(r);
              }
            });
        Json.meta(copy).set("ownerReferences", kept);
        store.update(dt, dep, copy);
      } else if (!anyOtherOwnerExists(refs, uid)) {
        delete(dt, dep, Options.DEFAULT, false);
      }
    }
  }

  private static boolean references(JsonNode refs, String uid) {
    for (JsonNode r : refs) {
      if (uid.equals(r.path("uid").asText())) {
        return true;
      }
    }
    return false;
  }

  private boolean anyOtherOwnerExists(JsonNode refs, String gone) {
    for (JsonNode r : refs) {
      String other = r.path("uid").asText();
      if (other.equals(gone)) {
        continue;
      }
      for (Map.Entry<ResourceType, Stored> e : store.scan(other)) {
        if (other.equals(e.getValue().uid())) {
          return true;
        }
      }
    }
    return false;
  }

  private ObjectNode deleteNamespace(ResourceType nsType, Stored cur, Options o, boolean dryRun) {
    ObjectNode obj = cur.obj().deepCopy();
    ObjectNode meta = Json.meta(obj);
    if (!meta.hasNonNull("deletionTimestamp")) {
      meta.put("deletionTimestamp", Json.now());
      meta.put("deletionGracePeriodSeconds", 0);
      Json.child(obj, "status").put("phase", "Terminating");
      if (dryRun) {
        return obj;
      }
      store.update(nsType, cur, obj);
    }
    if (dryRun) {
      return obj;
    }
    String ns = cur.name();
    for (ResourceType t : catalog.all()) {
      if (t.namespaced() && !t.createOnly()) {
        for (Stored s : store.list(t, ns)) {
          delete(t, s, Options.DEFAULT, false);
        }
      }
    }
    finishNamespaceIfEmpty(ns);
    Stored after = store.get(nsType, null, ns);
    return after == null ? obj : after.obj();
  }

  private void finishNamespaceIfEmpty(String ns) {
    if (ns == null) {
      return;
    }
    ResourceType nsType = catalog.require("", "v1", "namespaces");
    Stored n = store.get(nsType, null, ns);
    if (n == null || Json.text(n.obj(), "metadata", "deletionTimestamp") == null) {
      return;
    }
    if (Json.meta(n.obj()).path("finalizers").size() > 0) {
      return;
    }
    for (ResourceType t : catalog.all()) {
      if (t.namespaced() && !t.createOnly() && !store.list(t, ns).isEmpty()) {
        return;
      }
    }
    store.remove(nsType, n);
  }
}
