package dev.tandem.devstack.faults;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.tandem.devstack.kube.LocalKubernetes;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A plain-HTTP proxy on 127.0.0.1 in front of a real API server, for tests of API faults: requests
 * pass through to the server unless an {@link ApiFaults} fault matches them, in which case the
 * proxy answers the error itself (the server never sees the request) or holds the server's answer
 * back. Watches stream through and can be dropped on purpose.
 *
 * <p>Upstream, a request that carries its own {@code Authorization} header is sent with it (the
 * server authenticates the caller, so RBAC applies as without the proxy); any other request is sent
 * with the cluster admin's client certificate. Connection upgrades (WebSocket watches, exec,
 * attach, port-forward) are answered 503, on which fabric8 falls back to an HTTP watch.
 */
public final class KubeApiProxy implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KubeApiProxy.class);

  /** Hop-by-hop headers and those the JDK's client sets itself. */
  private static final Set<String> NOT_FORWARDED =
      Set.of(
          "host",
          "connection",
          "content-length",
          "expect",
          "upgrade",
          "keep-alive",
          "transfer-encoding",
          "te",
          "trailer",
          "proxy-connection");

  private final URI upstream;
  private final HttpClient asAdmin;
  private final HttpClient asCaller;
  private final HttpServer server;
  private final ExecutorService threads;
  private final Set<Closeable> watches = ConcurrentHashMap.newKeySet();
  private final ApiFaults faults = new ApiFaults(this::closeWatches);
  private final AtomicLong requests = new AtomicLong();

  private KubeApiProxy(Config admin) throws IOException {
    this.upstream = URI.create(admin.getMasterUrl().replaceAll("/+$", ""));
    try {
      SSLContext withCert =
          SSLUtils.sslContext(SSLUtils.keyManagers(admin), SSLUtils.trustManagers(admin));
      SSLContext trustOnly = SSLUtils.sslContext(null, SSLUtils.trustManagers(admin));
      this.asAdmin = client(withCert);
      this.asCaller = client(trustOnly);
    } catch (java.security.GeneralSecurityException e) {
      throw new IOException("the admin kubeconfig's certificates do not load: " + e, e);
    }
    threads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "kube-api-proxy");
              t.setDaemon(true);
              return t;
            });
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setExecutor(threads);
    server.createContext("/", this::handle);
    server.start();
  }

  /** A proxy in front of a local control plane, on a free port. */
  public static KubeApiProxy start(LocalKubernetes kube) throws IOException {
    return new KubeApiProxy(kube.adminConfig());
  }

  public ApiFaults faults() {
    return faults;
  }

  /** {@code http://127.0.0.1:<port>}. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /**
   * A client configuration for the proxy, like the worker's: namespace {@code default}, HTTP/1.1
   * and one retry only (fabric8 would retry a 5xx ten times and hide an outage from a test).
   */
  public Config config() {
    return new ConfigBuilder(Config.empty())
        .withMasterUrl(url())
        .withNamespace("default")
        .withHttp2Disable(true)
        .withRequestRetryBackoffLimit(1)
        .withOnlyHttpWatches(true)
        .build();
  }

  /** Writes a kubeconfig for the proxy (no credentials: the proxy adds the admin's). */
  public Path writeKubeconfig(Path file) throws IOException {
    String yaml =
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            "- name: proxy",
            "  cluster:",
            "    server: " + url(),
            "users:",
            "- name: proxy",
            "  user: {}",
            "contexts:",
            "- name: proxy",
            "  context: {cluster: proxy, user: proxy, namespace: default}",
            "current-context: proxy",
            "");
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, yaml);
    return file;
  }

  /** Requests the proxy has received. */
  public long requests() {
    return requests.get();
  }

  private static HttpClient client(SSLContext ssl) {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .sslContext(ssl)
        .connectTimeout(Duration.ofSeconds(5))
        .followRedirects(HttpClient.Redirect.NEVER)
        .build();
  }

  private void handle(HttpExchange ex) {
    requests.incrementAndGet();
    String method = ex.getRequestMethod().toUpperCase(Locale.ROOT);
    String target = ex.getRequestURI().getRawPath();
    if (ex.getRequestURI().getRawQuery() != null) {
      target += "?" + ex.getRequestURI().getRawQuery();
    }
    ApiFaults.Request view =
        ApiFaults.Request.of(method, target, ex.getRequestHeaders().getFirst("User-Agent"));
    try (ex) {
      if (ex.getRequestHeaders().containsKey("Upgrade")) {
        answer(ex, 503, ApiFaults.statusJson(503, view));
        return;
      }
      ApiFaults.Fault fault = faults.match(view);
      if (fault != null && fault.delay() == null) {
        answer(ex, fault.status(), fault.statusJson(view));
        return;
      }
      HttpResponse<InputStream> answer = forward(ex, method, target);
      if (fault != null) {
        Thread.sleep(fault.delay().toMillis());
      }
      relay(answer, ex, method, view.watch());
    } catch (IOException e) {
      log.debug("{} {}: {}", method, target, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void answer(HttpExchange ex, int code, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(code, body.length);
    ex.getResponseBody().write(body);
  }

  private HttpResponse<InputStream> forward(HttpExchange ex, String method, String target)
      throws IOException, InterruptedException {
    byte[] body = ex.getRequestBody().readAllBytes();
    HttpRequest.Builder req =
        HttpRequest.newBuilder(URI.create(upstream + target))
            .method(
                method,
                body.length == 0
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    boolean ownCredentials = false;
    for (Map.Entry<String, List<String>> h : ex.getRequestHeaders().entrySet()) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (NOT_FORWARDED.contains(name)) {
        continue;
      }
      ownCredentials |= name.equals("authorization");
      for (String v : h.getValue()) {
        req.header(h.getKey(), v);
      }
    }
    HttpClient via = ownCredentials ? asCaller : asAdmin;
    return via.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
  }

  private void relay(
      HttpResponse<InputStream> answer, HttpExchange ex, String method, boolean watch)
      throws IOException {
    answer
        .headers()
        .map()
        .forEach(
            (name, values) -> {
              String n = name.toLowerCase(Locale.ROOT);
              if (!NOT_FORWARDED.contains(n) && !n.startsWith(":")) {
                ex.getResponseHeaders().put(name, values);
              }
            });
    long length = answer.headers().firstValueAsLong("Content-Length").orElse(-1);
    int code = answer.statusCode();
    boolean noBody = method.equals("HEAD") || code == 204 || code == 304 || length == 0;
    ex.sendResponseHeaders(code, noBody ? -1 : Math.max(length, 0));
    InputStream in = answer.body();
    Closeable drop =
        () -> {
          ex.getResponseBody().close(); // the client sees the watch end and reconnects
          in.close();
        };
    try (in) {
      if (noBody) {
        return;
      }
      if (watch) {
        watches.add(drop);
      }
      OutputStream out = ex.getResponseBody();
      out.flush(); // the headers, now: a watch may send no event for a long time
      byte[] buf = new byte[16 * 1024];
      for (int n; (n = in.read(buf)) >= 0; ) {
        out.write(buf, 0, n);
        out.flush(); // a watch event reaches the client when the server sends it
      }
    } finally {
      watches.remove(drop);
    }
  }

  private void closeWatches() {
    for (Closeable w : watches) {
      try {
        w.close();
      } catch (IOException e) {
        log.debug("closing a watch: {}", e.toString());
      }
    }
    watches.clear();
  }

  @Override
  public void close() {
    server.stop(0);
    closeWatches();
    threads.shutdownNow();
  }
}
