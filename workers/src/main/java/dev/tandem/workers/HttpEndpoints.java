package dev.tandem.workers;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * {@code /metrics} (Prometheus text: {@code tandem_*} and the Temporal SDK's), {@code /healthz}
 * (alive: 503 with the reason when something that only a restart repairs is dead, e.g. a leader's
 * watcher or the leader election loop) and {@code /readyz} (connected to Temporal and Kubernetes,
 * worker polling; 503 with the reason otherwise). The JDK's HTTP server is enough for three
 * read-only endpoints.
 */
public final class HttpEndpoints implements AutoCloseable {
  private final HttpServer server;

  /**
   * @param readiness null when ready, else why not
   * @param liveness null when alive, else what is dead
   */
  public HttpEndpoints(
      String bind,
      int port,
      PrometheusMeterRegistry registry,
      Supplier<String> readiness,
      Supplier<String> liveness)
      throws IOException {
    server = HttpServer.create(new InetSocketAddress(bind, port), 0);
    server.setExecutor(
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "tandem-http");
              t.setDaemon(true);
              return t;
            }));
    server.createContext(
        "/metrics",
        ex -> respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
    server.createContext(
        "/healthz",
        ex -> {
          String why;
          try {
            why = liveness.get();
          } catch (RuntimeException e) {
            why = "the health check failed: " + e;
          }
          if (why == null) {
            respond(ex, 200, "text/plain", "ok\n");
          } else {
            respond(ex, 503, "text/plain", "unhealthy: " + why + "\n");
          }
        });
    server.createContext(
        "/readyz",
        ex -> {
          String why = readiness.get();
          if (why == null) {
            respond(ex, 200, "text/plain", "ready\n");
          } else {
            respond(ex, 503, "text/plain", "not ready: " + why + "\n");
          }
        });
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void respond(HttpExchange ex, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
