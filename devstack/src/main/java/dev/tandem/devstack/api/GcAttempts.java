package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.GcItem.AttemptDelete;
import dev.tandem.devstack.api.GcItem.DependentsOf;
import dev.tandem.devstack.api.GcItem.Ident;
import dev.tandem.devstack.api.GcItem.Orphan;
import dev.tandem.devstack.api.GcItem.OwnerCheck;
import dev.tandem.devstack.api.GcItem.Ref;
import dev.tandem.devstack.api.OwnerLookup.Found;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the garbage collector's workers do with one item (kube-controller-manager's {@code
 * garbagecollector.go}); always called under the dispatcher's write lock.
 *
 * <p>{@link #attemptToDelete} (attemptToDeleteItem), for one object:
 *
 * <ol>
 *   <li>Gone, or another object under that name (uid differs): nothing to do. Being deleted without
 *       {@code foregroundDeletion}: wait for it to go (its removal is observed).
 *   <li>Being deleted with {@code foregroundDeletion} (it waits for its dependents): if no
 *       dependent with {@code blockOwnerDeletion: true} exists any more — one that is terminating
 *       or held by its own finalizers still exists — drop that finalizer (the object then goes if
 *       nothing else holds it); otherwise attempt each blocking dependent.
 *   <li>Classify each owner reference: <em>dangling</em> (no object of that kind and name, in the
 *       dependent's namespace for a namespaced kind, with that uid), <em>waiting</em> (exists,
 *       deleting with {@code foregroundDeletion}) or <em>solid</em> (any other existing owner, also
 *       one deleting without {@code foregroundDeletion}). An owner kind the API does not serve, or
 *       a namespaced owner of a cluster-scoped object, leaves the object alone (the real GC retries
 *       or gives up; it never deletes).
 *   <li>At least one solid owner: the object stays; dangling and waiting references are removed (an
 *       ordinary update: new resourceVersion, MODIFIED).
 *   <li>No solid owner, some waiting and the object has dependents of its own: delete it with
 *       Foreground (first making its own references non-blocking if one of its dependents also
 *       waits, the real GC's cycle guard). Otherwise delete it with the policy its finalizers ask
 *       for, else Background.
 * </ol>
 */
final class GcAttempts {
  private static final Logger log = LoggerFactory.getLogger(GcAttempts.class);

  private final Store store;
  private final OwnerLookup owners;
  private final Deletes deletes;
  private final GarbageCollector gc;
  private final PodGc podGc;

  GcAttempts(Store store, ResourceCatalog catalog, Deletes deletes, GarbageCollector gc) {
    this.store = store;
    this.podGc = new PodGc(store, catalog, deletes);
    this.owners = new OwnerLookup(store, catalog);
    this.deletes = deletes;
    this.gc = gc;
  }

  void recordAbsent(String uid) {
    owners.recordAbsent(uid);
  }

  void handle(GcItem item) {
    if (item instanceof AttemptDelete a) {
      attemptToDelete(a.item());
    } else if (item instanceof Orphan o) {
      orphan(o.owner());
    } else if (item instanceof DependentsOf d) {
      owners
          .dependents(d.uid())
          .forEach(e -> gc.enqueue(new AttemptDelete(Ident.of(e.t(), e.s()))));
    } else if (item instanceof OwnerCheck c) {
      ownerCheck(c.ref(), c.dependentNamespace());
    } else if (item instanceof GcItem.PodsOfNode n) {
      podGc.collect(n.node());
    }
  }

  void attemptToDelete(Ident id) {
    Found f = owners.find(id);
    if (f == null) {
      return;
    }
    ObjectNode obj = f.s().obj();
    boolean deleting = Json.text(obj, "metadata", "deletionTimestamp") != null;
    if (GarbageCollector.deletingWith(obj, Deletes.FOREGROUND_FINALIZER)) {
      processDeletingDependents(f);
      return;
    }
    if (deleting) {
      return;
    }
    List<Ref> refs = Ref.of(obj);
    if (refs.isEmpty()) {
      return;
    }
    List<String> solid = new ArrayList<>();
    List<String> dangling = new ArrayList<>();
    List<String> waiting = new ArrayList<>();
    for (Ref r : refs) {
      switch (owners.classify(r, f.s().namespace())) {
        case SOLID -> solid.add(r.uid());
        case DANGLING -> dangling.add(r.uid());
        case WAITING -> waiting.add(r.uid());
        case UNKNOWN -> {
          log.debug("GC leaves {}: owner {} cannot be resolved", id, r);
          return;
        }
      }
    }
    if (!solid.isEmpty()) {
      if (!dangling.isEmpty() || !waiting.isEmpty()) {
        List<String> strip = new ArrayList<>(dangling);
        strip.addAll(waiting);
        log.debug("GC strips owners {} from {} (solid owners {})", strip, id, solid);
        stripOwners(f, Set.copyOf(strip));
      }
      return;
    }
    String uid = f.s().uid();
    List<Found> deps = owners.dependents(uid);
    String policy;
    if (!waiting.isEmpty() && !deps.isEmpty()) {
      if (deps.stream()
          .anyMatch(
              d -> GarbageCollector.deletingWith(d.s().obj(), Deletes.FOREGROUND_FINALIZER))) {
        unblockOwnReferences(f);
        f = owners.find(id);
      }
      policy = DeleteOptions.FOREGROUND;
    } else if (Deletes.hasFinalizer(obj, Deletes.ORPHAN_FINALIZER)) {
      policy = DeleteOptions.ORPHAN;
    } else if (Deletes.hasFinalizer(obj, Deletes.FOREGROUND_FINALIZER)) {
      policy = DeleteOptions.FOREGROUND;
    } else {
      policy = DeleteOptions.BACKGROUND;
    }
    if (Deletes.isPod(f.t())) {
      Deletes.PODS.debug("GC deletes pod {} ({})", id, policy); // once, on the deletions' logger
    } else {
      log.debug("GC deletes {} ({})", id, policy);
    }
    deletes.delete(f.t(), f.s(), DeleteOptions.gc(policy, uid), false);
  }

  private void processDeletingDependents(Found owner) {
    String uid = owner.s().uid();
    List<Found> blocking = new ArrayList<>();
    for (Found d : owners.dependents(uid)) {
      if (Ref.of(d.s().obj()).stream().anyMatch(r -> r.uid().equals(uid) && r.block())) {
        blocking.add(d);
      }
    }
    if (blocking.isEmpty()) {
      log.debug("GC: no blocking dependent left, {} loses {}", uid, Deletes.FOREGROUND_FINALIZER);
      removeFinalizer(owner, Deletes.FOREGROUND_FINALIZER);
      return;
    }
    for (Found d : blocking) {
      if (!GarbageCollector.deletingWith(d.s().obj(), Deletes.FOREGROUND_FINALIZER)) {
        gc.enqueue(new AttemptDelete(Ident.of(d.t(), d.s())));
      }
    }
  }

  private void orphan(Ident id) {
    Found owner = owners.find(id);
    if (owner == null) {
      return;
    }
    for (Found d : owners.dependents(owner.s().uid())) {
      stripOwners(d, Set.of(owner.s().uid()));
    }
    Found again = owners.find(id);
    if (again != null) {
      removeFinalizer(again, Deletes.ORPHAN_FINALIZER);
    }
  }

  private void ownerCheck(Ref ref, String dependentNamespace) {
    Found owner = owners.lookup(ref, dependentNamespace);
    if (owner != null
        && GarbageCollector.deletingWith(owner.s().obj(), Deletes.FOREGROUND_FINALIZER)) {
      processDeletingDependents(owner);
    }
  }

  private void stripOwners(Found f, Set<String> uids) {
    ObjectNode next = f.s().obj().deepCopy();
    ArrayNode kept = Json.F.arrayNode();
    for (JsonNode r : Json.meta(next).path("ownerReferences")) {
      if (!uids.contains(r.path("uid").asText())) {
        kept.add(r);
      }
    }
    if (kept.isEmpty()) {
      Json.meta(next).remove("ownerReferences");
    } else {
      Json.meta(next).set("ownerReferences", kept);
    }
    write(f, next);
  }

  private void unblockOwnReferences(Found f) {
    ObjectNode next = f.s().obj().deepCopy();
    for (JsonNode r : Json.meta(next).path("ownerReferences")) {
      if (r.path("blockOwnerDeletion").asBoolean(false)) {
        ((ObjectNode) r).put("blockOwnerDeletion", false);
      }
    }
    write(f, next);
  }

  private void removeFinalizer(Found f, String finalizer) {
    ObjectNode next = f.s().obj().deepCopy();
    List<String> fs = Deletes.finalizers(next);
    fs.remove(finalizer);
    Deletes.setFinalizers(next, fs);
    write(f, next);
  }

  /** An update as the GC's patch makes it; the last finalizer gone means the object goes. */
  private void write(Found f, ObjectNode next) {
    if (next.equals(f.s().obj())) {
      return;
    }
    if (Deletes.finalizersDone(f.t(), next)) {
      deletes.removeNow(f.t(), f.s(), next);
    } else {
      store.update(f.t(), f.s(), next);
    }
  }
}
