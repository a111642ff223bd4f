package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.StoreIndex.TypeKey;
import io.fabric8.mockwebserver.crud.AttributeSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Typed access to the mock's keyed store, read through the dispatcher's {@link StoreIndex}. Every
 * write gets a fresh resourceVersion and is published to the watch hub (DELETED events carry the
 * deleting resourceVersion, as on a real server). Callers hold the dispatcher's lock: reads at
 * least the read lock, writes the write lock.
 *
 * <p>The objects handed out are the index's trees themselves, shared by every reader and the watch
 * window: a caller never changes one, it derives a new state from a {@code deepCopy()}. (The tree a
 * caller writes is its own: the index parses the stored JSON.)
 */
final class Store {
  /** A stored object and the mock's key for it (needed to replace or remove it). */
  record Stored(AttributeSet key, ObjectNode obj) {
    String name() {
      return Json.text(obj, "metadata", "name");
    }

    String namespace() {
      return Json.text(obj, "metadata", "namespace");
    }

    String uid() {
      return Json.text(obj, "metadata", "uid");
    }

    String resourceVersion() {
      return Json.text(obj, "metadata", "resourceVersion");
    }
  }

  static final Comparator<Stored> BY_KEY =
      Comparator.comparing((Stored s) -> s.namespace() == null ? "" : s.namespace())
          .thenComparing(Stored::name);

  private final LocalApiDispatcher d;
  private final ResourceCatalog catalog;
  private final WatchHub watches;
  private DisruptionBudgets budgets;
  private GarbageCollector gc;

  Store(LocalApiDispatcher d, ResourceCatalog catalog, WatchHub watches) {
    this.d = d;
    this.catalog = catalog;
    this.watches = watches;
  }

  /** The disruption controller, run after every pod or budget write (set once at start). */
  void setBudgets(DisruptionBudgets b) {
    this.budgets = b;
  }

  /** The garbage collector, told about every write (set once at start). */
  void setGarbageCollector(GarbageCollector gc) {
    this.gc = gc;
  }

  ResourceCatalog catalog() {
    return catalog;
  }

  long currentRv() {
    return d.currentRv();
  }

  /**
   * The object, from the index (no scan, no parse). The tree is shared: change a deepCopy. For a
   * cluster-scoped type the namespace is ignored; null for a namespaced one means any namespace.
   */
  Stored get(ResourceType t, String namespace, String name) {
    return d.index().get(TypeKey.of(t), t.namespaced() ? namespace : null, name);
  }

  /** The object a request names, as {@link #get}; a 404 {@code NotFound} when there is none. */
  Stored require(ResourceType t, ApiRequest req) {
    Stored s = get(t, req.namespace, req.name);
    if (s == null) {
      throw ApiException.notFound(t, req.name);
    }
    return s;
  }

  /** All objects of a type, in a namespace or (null) everywhere, sorted by namespace/name. */
  List<Stored> list(ResourceType t, String namespace) {
    return d.index().list(TypeKey.of(t), t.namespaced() ? namespace : null);
  }

  /** The objects of a type with this name, in a namespace or (null) everywhere, sorted. */
  List<Stored> named(ResourceType t, String namespace, String name) {
    return d.index().named(TypeKey.of(t), t.namespaced() ? namespace : null, name);
  }

  /**
   * Every stored object with an owner reference to {@code uid} (the garbage collector's
   * dependents), read from the parsed objects' {@code ownerReferences}: cheaper than searching
   * every JSON string for the uid, as this once did, and without the false hits that search had to
   * filter out.
   */
  List<Map.Entry<ResourceType, Stored>> dependentsOf(String uid) {
    List<Map.Entry<ResourceType, Stored>> out = new ArrayList<>();
    d.index()
        .forEach(
            s -> {
              for (JsonNode r : s.obj().path("metadata").path("ownerReferences")) {
                if (uid.equals(r.path("uid").asText())) {
                  ResourceType t = typeOf(s.key());
                  if (t != null) {
                    out.add(Map.entry(t, s));
                  }
                  return;
                }
              }
            });
    return out;
  }

  private ResourceType typeOf(AttributeSet key) {
    StoreIndex.Ident id = StoreIndex.Ident.of(key);
    return id == null
        ? null
        : catalog.find(id.type().group(), id.type().version(), id.type().plural()).orElse(null);
  }

  void create(ResourceType t, ObjectNode obj) {
    Json.meta(obj).put("resourceVersion", String.valueOf(d.nextRv()));
    d.write(path(t, obj), null, obj);
    watches.publish(t, null, obj, currentRv());
    afterWrite(t, null, obj);
    observed(t, null, obj);
  }

  void update(ResourceType t, Stored old, ObjectNode obj) {
    Json.meta(obj).put("resourceVersion", String.valueOf(d.nextRv()));
    d.write(path(t, obj), old.key(), obj);
    watches.publish(t, old.obj(), obj, currentRv());
    afterWrite(t, old.obj(), obj);
    observed(t, old.obj(), obj);
  }

  /** Removes the object; returns its last state, stamped with the deleting resourceVersion. */
  ObjectNode remove(ResourceType t, Stored old) {
    ObjectNode gone = old.obj().deepCopy();
    Json.meta(gone).put("resourceVersion", String.valueOf(d.nextRv()));
    d.write(path(t, old.obj()), old.key(), null);
    watches.publish(t, gone, null, currentRv());
    afterWrite(t, gone, null);
    observed(t, gone, null);
    return gone;
  }

  private void observed(ResourceType t, ObjectNode old, ObjectNode now) {
    if (gc != null) {
      gc.observe(t, old, now);
    }
  }

  private void afterWrite(ResourceType t, ObjectNode old, ObjectNode now) {
    if (t.kind().equals("CustomResourceDefinition")) {
      catalog.setCrds(list(t, null).stream().map(Stored::obj).toList());
    }
    if (budgets != null) {
      budgets.refresh(t, old, now);
    }
  }

  private static String path(ResourceType t, ObjectNode obj) {
    return t.objectPath(
        Json.text(obj, "metadata", "namespace"), Json.text(obj, "metadata", "name"));
  }
}
