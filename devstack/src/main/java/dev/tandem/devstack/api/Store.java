package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Typed access to the mock's keyed store. Every write gets a fresh resourceVersion and is published
 * to the watch hub (DELETED events carry the deleting resourceVersion, as on a real server).
 * Callers hold the dispatcher's lock: reads at least the read lock, writes the write lock.
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

  long currentRv() {
    return d.currentRv();
  }

  Stored get(ResourceType t, String namespace, String name) {
    AttributeSet q = query(t, namespace).add(new Attribute("name", name));
    for (Map.Entry<AttributeSet, String> e : d.storage().entrySet()) {
      if (matches(e.getKey(), q, t)) {
        return new Stored(e.getKey(), Json.stored(e.getValue()));
      }
    }
    return null;
  }

  /** All objects of a type, in a namespace or (null) everywhere, sorted by namespace/name. */
  List<Stored> list(ResourceType t, String namespace) {
    AttributeSet q = query(t, namespace);
    List<Stored> out = new ArrayList<>();
    for (Map.Entry<AttributeSet, String> e : d.storage().entrySet()) {
      if (matches(e.getKey(), q, t)) {
        out.add(new Stored(e.getKey(), Json.stored(e.getValue())));
      }
    }
    out.sort(BY_KEY);
    return out;
  }

  /** Every stored object whose JSON mentions {@code needle} (a cheap pre-filter for GC). */
  List<Map.Entry<ResourceType, Stored>> scan(String needle) {
    List<Map.Entry<ResourceType, Stored>> out = new ArrayList<>();
    for (Map.Entry<AttributeSet, String> e : d.storage().entrySet()) {
      if (!e.getValue().contains(needle)) {
        continue;
      }
      ObjectNode obj = Json.stored(e.getValue());
      ResourceType t = typeOf(e.getKey());
      if (t != null) {
        out.add(Map.entry(t, new Stored(e.getKey(), obj)));
      }
    }
    return out;
  }

  private ResourceType typeOf(AttributeSet key) {
    Attribute api = key.getAttribute("api");
    Attribute version = key.getAttribute("version");
    Attribute plural = key.getAttribute("plural");
    if (version == null || plural == null) {
      return null;
    }
    String group = api == null ? "" : api.getValues().get(0).toString();
    return catalog
        .find(group, version.getValues().get(0).toString(), plural.getValues().get(0).toString())
        .orElse(null);
  }

  void create(ResourceType t, ObjectNode obj) {
    Json.meta(obj).put("resourceVersion", String.valueOf(d.nextRv()));
    d.write(path(t, obj), null, obj);
    watches.publish(t, null, obj, currentRv());
    afterWrite(t, obj);
    observed(t, null, obj);
  }

  void update(ResourceType t, Stored old, ObjectNode obj) {
    Json.meta(obj).put("resourceVersion", String.valueOf(d.nextRv()));
    d.write(path(t, obj), old.key(), obj);
    watches.publish(t, old.obj(), obj, currentRv());
    afterWrite(t, obj);
    observed(t, old.obj(), obj);
  }

  /** Removes the object; returns its last state, stamped with the deleting resourceVersion. */
  ObjectNode remove(ResourceType t, Stored old) {
    ObjectNode gone = old.obj().deepCopy();
    Json.meta(gone).put("resourceVersion", String.valueOf(d.nextRv()));
    d.write(path(t, old.obj()), old.key(), null);
    watches.publish(t, gone, null, currentRv());
    afterWrite(t, gone);
    observed(t, gone, null);
    return gone;
  }

  private void observed(ResourceType t, ObjectNode old, ObjectNode now) {
    if (gc != null) {
      gc.observe(t, old, now);
    }
  }

  private void afterWrite(ResourceType t, ObjectNode obj) {
    if (t.kind().equals("CustomResourceDefinition")) {
      catalog.setCrds(list(t, null).stream().map(Stored::obj).toList());
    }
    if (budgets != null) {
      budgets.refresh(t, Json.text(obj, "metadata", "namespace"));
    }
  }

  private static String path(ResourceType t, ObjectNode obj) {
    return t.objectPath(
        Json.text(obj, "metadata", "namespace"), Json.text(obj, "metadata", "name"));
  }

  private static AttributeSet query(ResourceType t, String namespace) {
    List<Attribute> attrs = new ArrayList<>();
    attrs.add(new Attribute("version", t.version()));
    attrs.add(new Attribute("plural", t.plural()));
    if (!t.group().isEmpty()) {
      attrs.add(new Attribute("api", t.group()));
    }
    if (t.namespaced() && namespace != null) {
      attrs.add(new Attribute("namespace", namespace));
    }
    return new AttributeSet(attrs);
  }

  private static boolean matches(AttributeSet key, AttributeSet q, ResourceType t) {
    // The mock's query for a core type has no "api" attribute and would also match grouped kinds.
    return key.matches(q) && (!t.group().isEmpty() || !key.containsKey("api"));
  }
}
