package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.devstack.api.Store.Stored;
import java.util.ArrayList;
import java.util.List;

/** Work for the {@link GarbageCollector}'s worker, and the identities it carries. */
sealed interface GcItem {
  /** One object, as the worker finds it again (a different uid under that name is another). */
  record Ident(
      String group, String version, String plural, String namespace, String name, String uid) {
    static Ident of(ResourceType t, Stored s) {
      return new Ident(t.group(), t.version(), t.plural(), s.namespace(), s.name(), s.uid());
    }
  }

  /** One owner reference of a dependent. */
  record Ref(String apiVersion, String kind, String name, String uid, boolean block) {
    static List<Ref> of(JsonNode obj) {
      List<Ref> out = new ArrayList<>();
      if (obj == null) {
        return out;
      }
      for (JsonNode r : obj.path("metadata").path("ownerReferences")) {
        out.add(
            new Ref(
                r.path("apiVersion").asText(),
                r.path("kind").asText(),
                r.path("name").asText(),
                r.path("uid").asText(),
                r.path("blockOwnerDeletion").asBoolean(false)));
      }
      return out;
    }

    boolean sameOwner(Ref o) {
      return uid.equals(o.uid)
          && apiVersion.equals(o.apiVersion)
          && kind.equals(o.kind)
          && name.equals(o.name);
    }
  }

  /** The GC's attemptToDeleteItem for one object. */
  record AttemptDelete(Ident item) implements GcItem {}

  /** The GC's attemptToOrphan: strip the owner from its dependents, then drop {@code orphan}. */
  record Orphan(Ident owner) implements GcItem {}

  /** Every object that references this uid gets an {@link AttemptDelete}. */
  record DependentsOf(String uid) implements GcItem {}

  /** The pod GC: pods bound to this node, which was removed (see {@link PodGc}). */
  record PodsOfNode(String node) implements GcItem {}

  /** An owner that may have stopped waiting for its dependents (one went or stopped blocking). */
  record OwnerCheck(Ref ref, String dependentNamespace) implements GcItem {}
}
