package dev.tandem.devstack.api;

import dev.tandem.devstack.api.Store.Stored;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The local API's index over the mock's store: per resource type, namespace → name → the stored
 * entry (the mock's key and the object as a tree). The mock keeps objects as JSON strings in one
 * map keyed by attribute sets, so every read used to scan all of it and parse what matched; here a
 * get is a lookup and a list touches only its type (and namespace), already parsed.
 *
 * <ol>
 *   <li>A tree is parsed once, when its object is written ({@link LocalApiDispatcher#write}), from
 *       the JSON the mock stores: the same tree a parse on every read gave.
 *   <li>Trees are shared with every reader and never copied here: whoever derives a new state from
 *       one works on a {@code deepCopy()}, as {@link Writes}, {@link Deletes} and the controllers
 *       do (a deepCopy costs a fraction of a parse, and only writers pay it).
 *   <li>Cluster-scoped objects sit under the namespace {@code ""}; iterating namespaces then names
 *       in order gives {@link Store#BY_KEY}'s order without sorting.
 * </ol>
 *
 * <p>Only {@link LocalApiDispatcher} changes it, in the same step as the mock's map, under the
 * dispatcher's write lock; readers hold at least the read lock.
 */
final class StoreIndex {
  /** A resource type as the mock's keys name it ({@code api} absent for the core group). */
  record TypeKey(String group, String version, String plural) {
    static TypeKey of(ResourceType t) {
      return new TypeKey(t.group(), t.version(), t.plural());
    }
  }

  /** Where one object sits: its type, namespace ({@code ""} if cluster-scoped) and name. */
  record Ident(TypeKey type, String namespace, String name) {
    /** The identity a mock key names; null when it names no type (no version or plural). */
    static Ident of(AttributeSet key) {
      String version = value(key, "version");
      String plural = value(key, "plural");
      if (version == null || plural == null) {
        return null;
      }
      String group = value(key, "api");
      String ns = value(key, "namespace");
      String name = value(key, "name");
      return new Ident(
          new TypeKey(group == null ? "" : group, version, plural),
          ns == null ? "" : ns,
          name == null ? "" : name);
    }

    private static String value(AttributeSet key, String attribute) {
      Attribute a = key.getAttribute(attribute);
      return a == null || a.getValues().isEmpty() ? null : a.getValues().get(0).toString();
    }
  }

  private final Map<TypeKey, NavigableMap<String, NavigableMap<String, Stored>>> byType =
      new HashMap<>();
  private int size;

  /** The object of that type and name; {@code namespace} null: the first in any namespace. */
  Stored get(TypeKey type, String namespace, String name) {
    NavigableMap<String, NavigableMap<String, Stored>> namespaces = byType.get(type);
    if (namespaces == null) {
      return null;
    }
    if (namespace != null) {
      NavigableMap<String, Stored> names = namespaces.get(namespace);
      return names == null ? null : names.get(name);
    }
    for (NavigableMap<String, Stored> names : namespaces.values()) {
      Stored s = names.get(name);
      if (s != null) {
        return s;
      }
    }
    return null;
  }

  /** The objects of a type in a namespace, or (null) everywhere, by namespace and name. */
  List<Stored> list(TypeKey type, String namespace) {
    NavigableMap<String, NavigableMap<String, Stored>> namespaces = byType.get(type);
    if (namespaces == null) {
      return new ArrayList<>();
    }
    if (namespace != null) {
      NavigableMap<String, Stored> names = namespaces.get(namespace);
      return names == null ? new ArrayList<>() : new ArrayList<>(names.values());
    }
    List<Stored> out = new ArrayList<>();
    namespaces.values().forEach(names -> out.addAll(names.values()));
    return out;
  }

  /** Every object named {@code name} of a type, in a namespace or (null) everywhere, in order. */
  List<Stored> named(TypeKey type, String namespace, String name) {
    List<Stored> out = new ArrayList<>();
    if (namespace != null) {
      Stored s = get(type, namespace, name);
      if (s != null) {
        out.add(s);
      }
      return out;
    }
    NavigableMap<String, NavigableMap<String, Stored>> namespaces = byType.get(type);
    if (namespaces != null) {
      for (NavigableMap<String, Stored> names : namespaces.values()) {
        Stored s = names.get(name);
        if (s != null) {
          out.add(s);
        }
      }
    }
    return out;
  }

  /** Every object, type by type (in no particular order of types). */
  void forEach(Consumer<Stored> action) {
    byType.values().forEach(ns -> ns.values().forEach(names -> names.values().forEach(action)));
  }

  Stored at(Ident id) {
    NavigableMap<String, NavigableMap<String, Stored>> namespaces = byType.get(id.type());
    NavigableMap<String, Stored> names = namespaces == null ? null : namespaces.get(id.namespace());
    return names == null ? null : names.get(id.name());
  }

  void put(Ident id, Stored s) {
    NavigableMap<String, Stored> names =
        byType
            .computeIfAbsent(id.type(), k -> new TreeMap<>())
            .computeIfAbsent(id.namespace(), k -> new TreeMap<>());
    if (names.put(id.name(), s) == null) {
      size++;
    }
  }

  void remove(Ident id) {
    NavigableMap<String, NavigableMap<String, Stored>> namespaces = byType.get(id.type());
    NavigableMap<String, Stored> names = namespaces == null ? null : namespaces.get(id.namespace());
    if (names == null || names.remove(id.name()) == null) {
      return;
    }
    size--;
    if (names.isEmpty()) {
      namespaces.remove(id.namespace()); // namespaces come and go (tests, dev sessions)
    }
  }

  int size() {
    return size;
  }

  void clear() {
    byType.clear();
    size = 0;
  }
}
