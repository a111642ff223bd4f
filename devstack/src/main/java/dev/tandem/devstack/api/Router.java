package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Supplier;

/** Maps a request to its handler and the lock it needs. */
final class Router {
  private final ReadWriteLock lock;
  private final ResourceCatalog catalog;
  private final Discovery discovery;
  private final OpenApiDocs openApi;
  private final Reads reads;
  private final Writes writes;
  private final Deletes deletes;
  private final Subresources subresources;
  private final WatchHub watches;
  private final PodLogs logs;
  private final Supplier<String> serverAddress;

  Router(
      ReadWriteLock lock,
      ResourceCatalog catalog,
      Reads reads,
      Writes writes,
      Deletes deletes,
      Subresources subresources,
      WatchHub watches,
      PodLogs logs,
      Supplier<String> serverAddress,
      KubeVersion version) {
    this.lock = lock;
    this.catalog = catalog;
    this.discovery = new Discovery(catalog, version);
    this.openApi = new OpenApiDocs(catalog);
    this.reads = reads;
    this.writes = writes;
    this.deletes = deletes;
    this.subresources = subresources;
    this.watches = watches;
    this.logs = logs;
    this.serverAddress = serverAddress;
  }

  MockResponse route(ApiRequest req, String accept) {
    String p =
        req.path.endsWith("/") && req.path.length() > 1
            ? req.path.substring(0, req.path.length() - 1)
            : req.path;
    switch (p) {
      case "/version":
        return Responses.json(200, discovery.version());
      case "/api":
        return Responses.json(200, discovery.coreVersions(serverAddress.get()));
      case "/apis":
        return locked(lock.readLock(), () -> Responses.json(200, discovery.groupList()));
      case "/healthz", "/readyz", "/livez":
        return Responses.text(200, "ok");
      case "/openapi/v3":
        return locked(lock.readLock(), () -> Responses.json(200, openApi.root()));
      default:
        break;
    }
    if (p.startsWith("/openapi/v3/")) {
      ObjectNode doc =
          locked(lock.readLock(), () -> openApi.doc(p.substring("/openapi/v3/".length())));
      if (doc == null) {
        throw ApiException.noSuchResource(p);
      }
      return Responses.json(200, doc).setHeader("Cache-Control", "public, immutable");
    }
    if (p.startsWith("/apis/") && req.version == null) {
      ObjectNode g = locked(lock.readLock(), () -> discovery.groupDoc(p.substring(6)));
      if (g == null) {
        throw ApiException.noSuchResource(p);
      }
      return Responses.json(200, g);
    }
    if (!req.apiPath) {
      throw ApiException.noSuchResource(p);
    }
    if (req.resource == null) {
      ObjectNode l = locked(lock.readLock(), () -> discovery.resourceList(req.group, req.version));
      if (l == null) {
        throw ApiException.noSuchResource(
            req.group.isEmpty() ? req.version : req.group + "/" + req.version);
      }
      return Responses.json(200, l);
    }
    return locked(
        req.isWatch() || "GET".equals(req.method) ? lock.readLock() : lock.writeLock(),
        () -> resource(req, accept));
  }

  private MockResponse resource(ApiRequest req, String accept) {
    ResourceType t =
        catalog
            .find(req.group, req.version, req.resource)
            .orElseThrow(
                () ->
                    ApiException.noSuchResource(
                        "the local API does not serve "
                            + (req.group.isEmpty() ? "" : req.group + "/")
                            + req.version
                            + " "
                            + req.resource));
    if (!t.namespaced() && req.namespace != null) {
      throw ApiException.noSuchResource(t.plural() + " is not namespaced");
    }
    if (t.namespaced() && req.namespace == null && req.name != null) {
      throw ApiException.noSuchResource(t.plural() + " needs a namespace");
    }
    String sub = req.subresource;
    if (req.isWatch()) {
      return watches.open(t, req, Tables.wanted(accept));
    }
    if (t.createOnly()) {
      if (!"POST".equals(req.method) || req.name != null) {
        throw ApiException.methodNotAllowed(t.plural() + " only supports create");
      }
      return subresources.bind(req, null);
    }
    switch (req.method) {
      case "GET":
        if (req.name == null) {
          return reads.list(t, req, accept);
        }
        if (sub == null || ("status".equals(sub) && t.statusSubresource())) {
          return reads.get(t, req, accept);
        }
        if ("scale".equals(sub) && t.hasScale()) {
          return subresources.getScale(t, req);
        }
        if (isPod(t) && "log".equals(sub)) {
          return logs.read(t, req);
        }
        break;
      case "POST":
        if (req.name == null) {
          return writes.create(t, req);
        }
        if (isPod(t) && "binding".equals(sub)) {
          return subresources.bind(req, req.name);
        }
        if (isPod(t) && "eviction".equals(sub)) {
          return subresources.evict(req);
        }
        if (sub == null) {
          throw ApiException.methodNotAllowed(
              "POST to a named " + t.singular() + " is not allowed");
        }
        break;
      case "PUT":
      case "PATCH":
        if (req.name == null) {
          throw ApiException.methodNotAllowed(req.method + " needs an object name");
        }
        if ("scale".equals(sub) && t.hasScale()) {
          return subresources.writeScale(t, req);
        }
        if (sub == null || ("status".equals(sub) && t.statusSubresource())) {
          return "PUT".equals(req.method) ? writes.update(t, req) : writes.patch(t, req);
        }
        break;
      case "DELETE":
        if (req.name == null) {
          return deletes.deleteCollection(t, req);
        }
        if (sub == null) {
          return deletes.delete(t, req);
        }
        break;
      default:
        throw ApiException.methodNotAllowed("method " + req.method + " is not supported");
    }
    throw ApiException.noSuchResource(t.plural() + "/" + sub);
  }

  private static boolean isPod(ResourceType t) {
    return t.group().isEmpty() && t.kind().equals("Pod");
  }

  private static <T> T locked(Lock l, Supplier<T> body) {
    l.lock();
    try {
      return body.get();
    } finally {
      l.unlock();
    }
  }
}
