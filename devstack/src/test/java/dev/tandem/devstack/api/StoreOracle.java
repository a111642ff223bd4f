package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.devstack.api.Store.Stored;
import dev.tandem.devstack.api.StoreIndex.Ident;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What the store answered before it had an index: a scan of the mock's whole map, each match
 * parsed. Tests compare the index against it, entry by entry and read by read.
 */
final class StoreOracle {
  private StoreOracle() {}

  /** The old {@code Store.list}: every key matching the type (and namespace), parsed, sorted. */
  static List<Stored> list(LocalApiDispatcher d, ResourceType t, String namespace) {
    List<Attribute> attrs = new ArrayList<>();
    attrs.add(new Attribute("version", t.version()));
    attrs.add(new Attribute("plural", t.plural()));
    if (!t.group().isEmpty()) {
      attrs.add(new Attribute("api", t.group()));
    }
    if (t.namespaced() && namespace != null) {
      attrs.add(new Attribute("namespace", namespace));
    }
    AttributeSet q = new AttributeSet(attrs);
    List<Stored> out = new ArrayList<>();
    for (Map.Entry<AttributeSet, String> e : d.storage().entrySet()) {
      // The mock's query for a core type has no "api" attribute and would also match grouped kinds.
      if (e.getKey().matches(q) && (!t.group().isEmpty() || !e.getKey().containsKey("api"))) {
        out.add(new Stored(e.getKey(), Json.stored(e.getValue())));
      }
    }
    out.sort(Store.BY_KEY);
    return out;
  }

  /**
   * Under the read lock: the index holds exactly the map's entries (same keys, trees equal to the
   * stored JSON — so nobody changed a shared tree), and every list and get over every type and
   * namespace answers what the scan answers, in the same order.
   */
  static void assertConsistent(LocalApiServer server) {
    LocalApiDispatcher d = server.dispatcher();
    Store store = server.store();
    d.lock.readLock().lock();
    try {
      Map<AttributeSet, String> map = d.storage();
      assertEquals(map.size(), d.index().size(), "entries in the map and the index");
      TreeSet<String> namespaces = new TreeSet<>();
      for (Map.Entry<AttributeSet, String> e : map.entrySet()) {
        Ident id = Ident.of(e.getKey());
        assertNotNull(id, "a stored key names a type: " + e.getKey());
        Stored s = d.index().at(id);
        assertNotNull(s, "indexed: " + id);
        assertEquals(e.getKey(), s.key(), "the index holds the map's key for " + id);
        assertEquals(Json.stored(e.getValue()), s.obj(), "the indexed tree is unchanged: " + id);
        namespaces.add(id.namespace());
      }
      List<String> scopes = new ArrayList<>(namespaces);
      scopes.add(null);
      for (ResourceType t : store.catalog().all()) {
        for (String ns : scopes) {
          List<Stored> expected = list(d, t, ns);
          List<Stored> actual = store.list(t, ns);
          assertEquals(keys(expected), keys(actual), t.plural() + " in " + ns);
          for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i).obj(), actual.get(i).obj());
          }
          for (Stored e : expected) {
            Stored g = store.get(t, e.namespace(), e.name());
            assertNotNull(g, t.plural() + " " + e.namespace() + "/" + e.name());
            assertEquals(e.key(), g.key());
            assertEquals(e.obj(), g.obj());
          }
          assertNull(store.get(t, ns, "no-such-object"));
        }
      }
    } finally {
      d.lock.readLock().unlock();
    }
  }

  private static List<AttributeSet> keys(List<Stored> l) {
    return l.stream().map(Stored::key).toList();
  }
}
