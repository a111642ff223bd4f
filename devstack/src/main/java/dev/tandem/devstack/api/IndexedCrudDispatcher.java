package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.Store.Stored;
import dev.tandem.devstack.api.StoreIndex.Ident;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The storage half of {@link LocalApiDispatcher}: fabric8's CRUD dispatcher's keyed map ({@code
 * map}: key attributes → JSON) with a {@link StoreIndex} next to it that holds every object parsed,
 * by type, namespace and name. {@link #processEvent} changes both together, and every change to the
 * map goes through it, so reads never scan or parse the map.
 */
abstract class IndexedCrudDispatcher extends KubernetesCrudDispatcher {
  /** Reads take the read lock, writes the write lock (see {@link LocalApiDispatcher}). */
  final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

  private final StoreIndex index = new StoreIndex();

  /**
   * The mock's map (protected in {@code CrudDispatcher}), read-only: every change goes through
   * {@link #processEvent} so that the {@link #index()} follows it. Only used under {@link #lock}.
   */
  Map<AttributeSet, String> storage() {
    return Collections.unmodifiableMap(map);
  }

  /** The parsed view of {@link #storage()} that reads use; under {@link #lock}. */
  StoreIndex index() {
    return index;
  }

  /** Writes (or with null removes) through the mock's own event path; under the write lock. */
  void write(String path, AttributeSet oldKey, ObjectNode newObject) {
    apply(path, getKey(path), oldKey, newObject == null ? null : Json.write(newObject));
  }

  /**
   * The mock's only writer of {@code map} apart from its plain-CRUD handlers (refused below) and
   * {@link #reset()}; its own request handlers, never reached since {@link
   * LocalApiDispatcher#dispatch} replaces them, would land here too and keep the index in step.
   */
  @Override
  public void processEvent(
      String path,
      AttributeSet pathAttributes,
      AttributeSet oldAttributes,
      GenericKubernetesResource resource,
      String newState) {
    apply(path, pathAttributes, oldAttributes, newState);
  }

  /**
   * One change to the map and the index together:
   *
   * <ol>
   *   <li>The JSON is parsed once, here, for the index: the tree every read used to parse anew
   *       (numbers as a parse gives them, which equality checks such as no-op writes rely on), and
   *       apart from the writer's own tree.
   *   <li>The new key is computed as the mock computes it (its extractor on the object's
   *       apiVersion, kind, name, namespace and labels; the path's attributes when that gives no
   *       plural), from a {@link GenericKubernetesResource} holding only those fields, which is
   *       also handed to the mock: it then extracts the same key from it instead of parsing the
   *       whole JSON again.
   *   <li>The entry replaced is the one the index holds under the object's identity (type,
   *       namespace, name), normally {@code oldKey}; so a stale key never leaves a second copy of
   *       an object in the map. A write cannot move an object to another identity.
   *   <li>The mock stores the JSON (and registers CRDs); the index stores the tree.
   * </ol>
   */
  private void apply(String path, AttributeSet pathKey, AttributeSet oldKey, String json) {
    ObjectNode tree = json == null ? null : Json.stored(json);
    GenericKubernetesResource head = tree == null ? null : head(tree);
    AttributeSet newKey = head == null ? null : keyOf(pathKey, head);
    Ident oldId = oldKey == null ? null : Ident.of(oldKey);
    Ident newId = newKey == null ? null : Ident.of(newKey);
    if (newKey != null && newId == null) {
      throw new IllegalStateException("a stored object needs a version and a plural: " + newKey);
    }
    if (oldId != null && newId != null && !oldId.equals(newId)) {
      throw new IllegalStateException("a write cannot change identity: " + oldId + " -> " + newId);
    }
    Ident id = newId != null ? newId : oldId;
    Stored current = id == null ? null : index.at(id);
    super.processEvent(path, pathKey, current != null ? current.key() : oldKey, head, json);
    if (newId != null) {
      index.put(newId, new Stored(newKey, tree));
    } else if (id != null) {
      index.remove(id);
    }
  }

  private AttributeSet keyOf(AttributeSet pathKey, GenericKubernetesResource head) {
    AttributeSet k = ((KubernetesAttributesExtractor) attributeExtractor).extract(head);
    return k.containsKey(KubernetesAttributesExtractor.PLURAL) ? k : AttributeSet.merge(pathKey, k);
  }

  /** What the mock's key extractor reads of an object, without parsing the rest. */
  private static GenericKubernetesResource head(ObjectNode obj) {
    GenericKubernetesResource h = new GenericKubernetesResource();
    h.setApiVersion(Json.text(obj, "apiVersion"));
    h.setKind(Json.text(obj, "kind"));
    ObjectMeta meta = new ObjectMeta();
    meta.setName(Json.text(obj, "metadata", "name"));
    meta.setNamespace(Json.text(obj, "metadata", "namespace"));
    JsonNode labels = Json.at(obj, "metadata", "labels");
    if (labels != null && labels.isObject()) {
      Map<String, String> l = new LinkedHashMap<>();
      labels.fields().forEachRemaining(e -> l.put(e.getKey(), Json.text(e.getValue())));
      meta.setLabels(l);
    }
    h.setMetadata(meta);
    return h;
  }

  @Override
  public void reset() {
    lock.writeLock().lock();
    try {
      super.reset();
      index.clear();
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public Map<AttributeSet, String> getMap() {
    return storage();
  }

  // The plain CRUD handlers write the map directly, past the index; nothing here calls them.

  @Override
  public MockResponse handleCreate(String path, String body) {
    throw new UnsupportedOperationException("the local API writes through processEvent only");
  }

  @Override
  public MockResponse handlePatch(String path, String body) {
    throw new UnsupportedOperationException("the local API writes through processEvent only");
  }

  @Override
  public MockResponse handleUpdate(String path, String body) {
    throw new UnsupportedOperationException("the local API writes through processEvent only");
  }
}
