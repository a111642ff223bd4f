package dev.tandem.devstack.api;

import dev.tandem.devstack.api.GcItem.Ident;
import dev.tandem.devstack.api.GcItem.Ref;
import dev.tandem.devstack.api.Store.Stored;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The garbage collector's view of owners and dependents, read from the store (the real GC keeps a
 * graph fed by informers; here the store is the graph). Called under the write lock only.
 */
final class OwnerLookup {
  private static final int ABSENT_CACHE = 500;

  /** How a dependent's owner reference stands (kube-controller-manager's classifyReferences). */
  enum OwnerState {
    SOLID,
    DANGLING,
    WAITING,
    UNKNOWN
  }

  /** One stored object and its type. */
  record Found(ResourceType t, Stored s) {}

  private final Store store;
  private final ResourceCatalog catalog;

  /** Uids of owners seen removed (the real GC's absentOwnerCache): their kind may be gone too. */
  private final Map<String, Boolean> absent =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> e) {
          return size() > ABSENT_CACHE;
        }
      };

  OwnerLookup(Store store, ResourceCatalog catalog) {
    this.store = store;
    this.catalog = catalog;
  }

  void recordAbsent(String uid) {
    absent.put(uid, Boolean.TRUE);
  }

  OwnerState classify(Ref ref, String dependentNamespace) {
    if (absent.containsKey(ref.uid())) {
      return OwnerState.DANGLING;
    }
    ResourceType ot = ownerType(ref);
    if (ot == null || (ot.namespaced() && dependentNamespace == null)) {
      return OwnerState.UNKNOWN;
    }
    Found owner = lookup(ref, dependentNamespace);
    if (owner == null) {
      return OwnerState.DANGLING;
    }
    return GarbageCollector.deletingWith(owner.s().obj(), Deletes.FOREGROUND_FINALIZER)
        ? OwnerState.WAITING
        : OwnerState.SOLID;
  }

  /** The owner a reference names, if it exists with that uid (any stored version of its kind). */
  Found lookup(Ref ref, String dependentNamespace) {
    ResourceType ot = ownerType(ref);
    if (ot == null || (ot.namespaced() && dependentNamespace == null)) {
      return null;
    }
    for (ResourceType t : catalog.all()) {
      if (t.group().equals(ot.group()) && t.kind().equals(ot.kind()) && !t.createOnly()) {
        Stored s = store.get(t, t.namespaced() ? dependentNamespace : null, ref.name());
        if (s != null && ref.uid().equals(s.uid())) {
          return new Found(t, s);
        }
      }
    }
    return null;
  }

  private ResourceType ownerType(Ref ref) {
    String av = ref.apiVersion();
    int slash = av.indexOf('/');
    String group = slash < 0 ? "" : av.substring(0, slash);
    String version = slash < 0 ? av : av.substring(slash + 1);
    for (ResourceType t : catalog.all()) {
      if (t.group().equals(group)
          && t.version().equals(version)
          && t.kind().equals(ref.kind())
          && !t.createOnly()) {
        return t;
      }
    }
    return null;
  }

  Found find(Ident id) {
    ResourceType t = catalog.find(id.group(), id.version(), id.plural()).orElse(null);
    if (t == null) {
      return null;
    }
    Stored s = store.get(t, id.namespace(), id.name());
    return s == null || !s.uid().equals(id.uid()) ? null : new Found(t, s);
  }

  /** Every object with an owner reference to {@code uid}. */
  List<Found> dependents(String uid) {
    List<Found> out = new ArrayList<>();
    for (Map.Entry<ResourceType, Stored> e : store.dependentsOf(uid)) {
      out.add(new Found(e.getKey(), e.getValue()));
    }
    return out;
  }
}
