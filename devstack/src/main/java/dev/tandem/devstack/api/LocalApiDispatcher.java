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
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * fabric8's CRUD dispatcher (7.8.0, pinned) with every request routed through the compatibility
 * layer. What is reused from the mock, through its public/protected API only: the keyed in-memory
 * store ({@code map}, {@code findResource}, {@code getKey}), {@code processEvent} (store update and
 * CRD registration) and {@code requestResourceVersion}. Its own request handlers and watch
 * listeners are never reached: {@link #dispatch} replaces them. {@code MockContractTest} pins the
 * mock behaviour this relies on. Next to the map, a {@link StoreIndex} holds every object parsed,
 * by type, namespace and name; {@link #processEvent} changes both together, so reads never scan or
 * parse the map.
 *
 * <p>Locking: one read/write lock; reads take the read lock, writes the write lock, and watch
 * events are sent while the write lock is held so that every watcher sees changes in
 * resourceVersion order. Requests arrive on Vert.x event-loop threads, so sends to WebSockets there
 * never block; the {@link GarbageCollector} runs its work on those event loops for the same reason.
 */
final class LocalApiDispatcher extends KubernetesCrudDispatcher {
  private static final Logger log = LoggerFactory.getLogger(LocalApiDispatcher.class);

  final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final AtomicLong lastRv = new AtomicLong();
  private final StoreIndex index = new StoreIndex();

  /** Requests from Tandem's own clients (User-Agent {@code tandem/...}), for benchmarks. */
  final AtomicLong tandemRequests = new AtomicLong();

  private volatile Router router;
  private volatile ApiFaults faults;

  void setRouter(Router router) {
    this.router = router;
  }

  void setFaults(ApiFaults faults) {
    this.faults = faults;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    ApiFaults f = faults;
    if (f == null) {
      return handle(request);
    }
    ApiFaults.Request view = faultView(request);
    ApiFaults.Fault fault = f.match(view);
    if (fault == null) {
      return handle(request);
    }
    Duration delay = ApiFaults.delayOf(fault);
    if (delay == null) {
      log.debug("{} {} -> injected fault", request.getMethod(), request.getPath());
      return ApiFaults.errorResponse(fault, view);
    }
    return handle(request).setBodyDelay(delay);
  }

  /** The request as fault predicates see it; a path the router would refuse still has a view. */
  private static ApiFaults.Request faultView(RecordedRequest request) {
    String method = String.valueOf(request.getMethod()).toUpperCase(Locale.ROOT);
    String ua = request.getHeader("User-Agent");
    try {
      ApiRequest r = new ApiRequest(method, request.getPath(), null, ua, null);
      return new ApiFaults.Request(
          r.method,
          r.path,
          r.group,
          r.version,
          r.namespace,
          r.resource,
          r.name,
          r.subresource,
          r.isWatch(),
          ua);
    } catch (RuntimeException e) {
      String path = request.getPath();
      int q = path == null ? -1 : path.indexOf('?');
      return new ApiFaults.Request(
          method,
          q < 0 ? path : path.substring(0, q),
          null,
          null,
          null,
          null,
          null,
          null,
          false,
          ua);
    }
  }

  private MockResponse handle(RecordedRequest request) {
    ApiRequest req = null;
    try {
      req =
          new ApiRequest(
              request.getMethod(),
              request.getPath(),
              request.getHeader("Content-Type"),
              request.getHeader("User-Agent"),
              request.getBody() == null ? null : request.getBody().readUtf8());
      ApiAudit.get().record(req);
      if (req.userAgent != null && req.userAgent.startsWith("tandem/")) {
        tandemRequests.incrementAndGet();
      }
      if (req.isWatch() && !"websocket".equalsIgnoreCase(request.getHeader("Upgrade"))) {
        throw ApiException.badRequest(
            "the local API serves watches over WebSocket only (what fabric8 informers and"
                + " client-go's WebSocket watch use); HTTP streaming watches such as kubectl get -w"
                + " are not supported");
      }
      String ct = req.contentType == null ? "" : req.contentType;
      if (ct.contains("protobuf") || ct.contains("cbor")) {
        throw ApiException.unsupportedMediaType(
            "the local API accepts JSON bodies only, not "
                + ct
                + " (kubectl create <generator> sends protobuf: use kubectl create/apply -f with"
                + " YAML or JSON)");
      }
      return router.route(req, request.getHeader("Accept"));
    } catch (ApiException e) {
      log.debug("{} -> {} {}", req, e.code, e.getMessage());
      return Responses.json(e.code, e.toStatus());
    } catch (RuntimeException e) {
      log.warn("local API failed on {} {}", request.getMethod(), request.getPath(), e);
      ApiException err =
          new ApiException(
              500, "InternalError", "Internal error occurred: " + e, null, null, null, null);
      return Responses.json(500, err.toStatus());
    }
  }

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

  long nextRv() {
    long v = requestResourceVersion();
    lastRv.set(v);
    return v;
  }

  long currentRv() {
    return lastRv.get();
  }

  /** Writes (or with null removes) through the mock's own event path; under the write lock. */
  void write(String path, AttributeSet oldKey, ObjectNode newObject) {
    apply(path, getKey(path), oldKey, newObject == null ? null : Json.write(newObject));
  }

  /**
   * The mock's only writer of {@code map} apart from its plain-CRUD handlers (refused below) and
   * {@link #reset()}; its own request handlers, never reached since {@link #dispatch} replaces
   * them, would land here too and keep the index in step.
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
