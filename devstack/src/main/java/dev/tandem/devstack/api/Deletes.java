package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.Store.Stored;
import io.fabric8.mockwebserver.http.MockResponse;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletion as a real API server does it (the generic registry's {@code Delete}):
 *
 * <ol>
 *   <li>A pod bound to a node is deleted gracefully: {@code deletionTimestamp} = now + grace; a
 *       second delete may only shorten the grace period, and while a grace period runs nothing else
 *       changes (the kubelet stops the pod and deletes it with grace 0).
 *   <li>The garbage-collection finalizers follow the propagation policy (see {@link
 *       DeleteOptions#orphans}): {@code foregroundDeletion} for Foreground, {@code orphan} for
 *       Orphan, neither for Background.
 *   <li>An object with finalizers left (its own or those two) stays, with {@code
 *       deletionTimestamp}; otherwise it is removed at once.
 * </ol>
 *
 * <p>What happens to dependents is the {@link GarbageCollector}'s business, asynchronously, as on a
 * cluster. A namespace takes its contents with it, and a CRD its custom resources.
 */
final class Deletes {
  /**
   * Who deleted which pod (the API call's User-Agent, an eviction, the garbage collectors), at
   * DEBUG: {@code tandem dev}'s {@code tandem.log} and the ITs' output switch it on; a benchmark's
   * thousands of deletions stay off the terminal (docs/local-api.md).
   */
  static final Logger PODS = LoggerFactory.getLogger("dev.tandem.devstack.api.PodDeletions");

  static final String FOREGROUND_FINALIZER = "foregroundDeletion";
  static final String ORPHAN_FINALIZER = "orphan";

  private final Store store;
  private final ResourceCatalog catalog;
  private final NamespaceDeletion namespaces;

  Deletes(Store store, ResourceCatalog catalog) {
    this.store = store;
    this.catalog = catalog;
    this.namespaces = new NamespaceDeletion(store, catalog);
  }

  MockResponse delete(ResourceType t, ApiRequest req) {
    Stored cur = store.require(t, req);
    DeleteOptions o = DeleteOptions.from(req);
    checkPreconditions(t, cur, o);
    boolean dryRun = req.dryRun() || o.dryRun();
    if (isPod(t) && !dryRun) {
      PODS.debug(
          "DELETE pod {}/{} (uid {}) by {}", req.namespace, req.name, cur.uid(), req.userAgent);
    }
    ObjectNode out = delete(t, cur, o, dryRun);
    // As the API server: 202 when the caller asked for cascading (orphanDependents=false) and
    // the object is not gone yet.
    boolean stays = dryRun || store.get(t, req.namespace, req.name) != null;
    int code = Boolean.FALSE.equals(o.orphanDependents()) && stays ? 202 : 200;
    return Responses.json(code, out);
  }

  static void checkPreconditions(ResourceType t, Stored cur, DeleteOptions o) {
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
  }

  MockResponse deleteCollection(ResourceType t, ApiRequest req) {
    LabelSelector labels = LabelSelector.parse(req.param("labelSelector"));
    FieldSelector fields = FieldSelector.parse(req.param("fieldSelector"), t);
    DeleteOptions o = DeleteOptions.from(req);
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
  ObjectNode delete(ResourceType t, Stored cur, DeleteOptions o, boolean dryRun) {
    if (t.kind().equals("Namespace") && t.group().isEmpty()) {
      return namespaces.delete(this, t, cur, dryRun);
    }
    ObjectNode obj = cur.obj().deepCopy();
    ObjectNode meta = Json.meta(obj);
    boolean deleting = meta.hasNonNull("deletionTimestamp");
    boolean graceful = false;
    long grace = 0;
    if (isPod(t)) {
      long current = meta.path("deletionGracePeriodSeconds").asLong(0);
      if (deleting && current > 0) {
        Long g = o.gracePeriodSeconds();
        Long asked = g == null ? null : g < 0 ? 1 : g;
        if (asked == null || asked >= current) {
          return cur.obj(); // a grace period runs: nothing but a shorter one changes it
        }
        Instant was = Instant.parse(meta.get("deletionTimestamp").asText());
        meta.put("deletionTimestamp", was.minusSeconds(current).plusSeconds(asked).toString());
        meta.put("deletionGracePeriodSeconds", asked);
        graceful = true;
        grace = asked;
      } else if (!deleting) {
        grace = graceSeconds(t, obj, o);
        meta.put("deletionTimestamp", stamp(grace));
        meta.put("deletionGracePeriodSeconds", grace);
        graceful = true;
      }
    }
    List<String> finalizers = finalizers(obj);
    List<String> next = new ArrayList<>();
    for (String f : finalizers) {
      if (!f.equals(ORPHAN_FINALIZER) && !f.equals(FOREGROUND_FINALIZER)) {
        next.add(f);
      }
    }
    if (o.orphans(finalizers)) {
      next.add(ORPHAN_FINALIZER);
    }
    if (o.foreground(finalizers)) {
      next.add(FOREGROUND_FINALIZER);
    }
    if (!new HashSet<>(next).equals(new HashSet<>(finalizers))) {
      setFinalizers(obj, next);
    }
    boolean pending = !next.isEmpty();
    if (!pending && grace == 0) {
      return dryRun ? obj : removeNow(t, cur, obj);
    }
    if (!graceful) {
      markAsDeleting(obj);
    }
    if (!deleting && t.tracksGeneration()) {
      meta.put("generation", meta.path("generation").asLong(0) + 1);
    }
    if (!dryRun && !obj.equals(cur.obj())) {
      store.update(t, cur, obj);
    }
    return obj;
  }

  private static String stamp(long graceSeconds) {
    return Instant.now().plusSeconds(graceSeconds).truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /** deletionTimestamp now (unless earlier already) and grace 0: what finalizers hold. */
  private static void markAsDeleting(ObjectNode obj) {
    ObjectNode meta = Json.meta(obj);
    String now = stamp(0);
    String was = Json.text(meta, "deletionTimestamp");
    if (was == null || Instant.parse(was).isAfter(Instant.parse(now))) {
      meta.put("deletionTimestamp", now);
    }
    meta.put("deletionGracePeriodSeconds", 0);
  }

  static boolean isPod(ResourceType t) {
    return t.group().isEmpty() && t.kind().equals("Pod");
  }

  static List<String> finalizers(ObjectNode obj) {
    List<String> out = new ArrayList<>();
    Json.meta(obj).path("finalizers").forEach(f -> out.add(f.asText()));
    return out;
  }

  /** Sets the finalizers; an empty list is dropped, as the API server stores it. */
  static void setFinalizers(ObjectNode obj, List<String> finalizers) {
    ObjectNode meta = Json.meta(obj);
    if (finalizers.isEmpty()) {
      meta.remove("finalizers");
      return;
    }
    ArrayNode a = meta.putArray("finalizers");
    finalizers.forEach(a::add);
  }

  /** Seconds of grace: only a pod on a node that is not finished gets any. */
  static long graceSeconds(ResourceType t, ObjectNode obj, DeleteOptions o) {
    if (!isPod(t)) {
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

  /**
   * Removes the object for good (its dependents are the garbage collector's, which sees the
   * removal); a CRD takes its custom resources, a terminating namespace may now be empty.
   */
  ObjectNode removeNow(ResourceType t, Stored cur, ObjectNode last) {
    ObjectNode gone = store.remove(t, cur);
    if (t.kind().equals("CustomResourceDefinition")) {
      for (ResourceType crType : ResourceCatalog.fromCrd(cur.obj())) {
        for (Stored cr : store.list(crType, null)) {
          store.remove(crType, cr);
        }
      }
      catalog.setCrds(store.list(t, null).stream().map(Stored::obj).toList());
    }
    if (t.namespaced()) {
      namespaces.finishIfEmpty(cur.namespace());
    }
    return last == null ? gone : last;
  }

  static boolean hasFinalizer(JsonNode obj, String f) {
    for (JsonNode x : obj.path("metadata").path("finalizers")) {
      if (f.equals(x.asText())) {
        return true;
      }
    }
    return false;
  }
}
