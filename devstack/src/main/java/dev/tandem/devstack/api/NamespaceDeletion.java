package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.Store.Stored;

/**
 * Namespace deletion as the API server and the namespace controller do it: the namespace turns
 * Terminating, its contents are deleted with Background propagation, and it goes once empty.
 */
final class NamespaceDeletion {
  private final Store store;
  private final ResourceCatalog catalog;

  NamespaceDeletion(Store store, ResourceCatalog catalog) {
    this.store = store;
    this.catalog = catalog;
  }

  ObjectNode delete(Deletes deletes, ResourceType nsType, Stored cur, boolean dryRun) {
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
    // The namespace controller deletes the contents with Background propagation.
    DeleteOptions background =
        new DeleteOptions(null, DeleteOptions.BACKGROUND, null, null, null, false);
    for (ResourceType t : catalog.all()) {
      if (t.namespaced() && !t.createOnly()) {
        for (Stored s : store.list(t, ns)) {
          deletes.delete(t, s, background, false);
        }
      }
    }
    finishIfEmpty(ns);
    Stored after = store.get(nsType, null, ns);
    return after == null ? obj : after.obj();
  }

  /** Removes a terminating namespace once nothing is left in it (and no finalizer holds it). */
  void finishIfEmpty(String ns) {
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
