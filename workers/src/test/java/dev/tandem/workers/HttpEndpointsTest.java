package dev.tandem.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@code /healthz} fails, with the reason, while something only a restart repairs is dead. */
class HttpEndpointsTest {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private HttpResponse<String> get(HttpEndpoints e, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + e.port() + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void healthzFollowsLivenessAndReadyzReadiness() throws Exception {
    AtomicReference<String> dead = new AtomicReference<>();
    AtomicReference<String> notReady = new AtomicReference<>();
    try (HttpEndpoints e =
        new HttpEndpoints(
            "127.0.0.1",
            0,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            notReady::get,
            dead::get)) {
      assertEquals(200, get(e, "/healthz").statusCode());
      assertEquals("ok\n", get(e, "/healthz").body());

      dead.set("the Slurm poller thread died");
      HttpResponse<String> r = get(e, "/healthz");
      assertEquals(503, r.statusCode());
      assertEquals("unhealthy: the Slurm poller thread died\n", r.body());
      assertEquals(200, get(e, "/readyz").statusCode(), "readiness is separate");

      notReady.set("Temporal unreachable: x");
      assertEquals(503, get(e, "/readyz").statusCode());
      dead.set(null);
      assertEquals(200, get(e, "/healthz").statusCode());
    }
  }

  @Test
  void aFailingHealthCheckIsAnAnswerNotAHang() throws Exception {
    try (HttpEndpoints e =
        new HttpEndpoints(
            "127.0.0.1",
            0,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            () -> null,
            () -> {
              throw new IllegalStateException("boom");
            })) {
      HttpResponse<String> r = get(e, "/healthz");
      assertEquals(503, r.statusCode());
      assertEquals(
          "unhealthy: the health check failed: java.lang.IllegalStateException: boom\n", r.body());
    }
  }
}
