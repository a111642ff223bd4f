package dev.tandem.devstack.api;

import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * fabric8's CRUD dispatcher (7.8.0, pinned) with every request routed through the compatibility
 * layer. What is reused from the mock, through its public/protected API only: the keyed in-memory
 * store ({@code map}, {@code findResource}, {@code getKey}), {@code processEvent} (store update and
 * CRD registration) and {@code requestResourceVersion}. Its own request handlers and watch
 * listeners are never reached: {@link #dispatch} replaces them. {@code MockContractTest} pins the
 * mock behaviour this relies on. The map, and the index of parsed objects kept in step with it, are
 * {@link IndexedCrudDispatcher}'s.
 *
 * <p>Locking: one read/write lock; reads take the read lock, writes the write lock, and watch
 * events are sent while the write lock is held so that every watcher sees changes in
 * resourceVersion order. Requests arrive on Vert.x event-loop threads, so sends to WebSockets there
 * never block; the {@link GarbageCollector} runs its work on those event loops for the same reason.
 */
final class LocalApiDispatcher extends IndexedCrudDispatcher {
  private static final Logger log = LoggerFactory.getLogger(LocalApiDispatcher.class);

  private final AtomicLong lastRv = new AtomicLong();

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

  long nextRv() {
    long v = requestResourceVersion();
    lastRv.set(v);
    return v;
  }

  long currentRv() {
    return lastRv.get();
  }
}
