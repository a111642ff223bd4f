package dev.tandem.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.tandem.slurm.SlurmTransport.Request;
import dev.tandem.slurm.SlurmTransport.Response;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HttpSlurmTransportTest {
  private static final String TOKEN = "header.payload.signature-secret";
  private HttpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private String startServer(com.sun.net.httpserver.HttpHandler handler) throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", handler);
    server.start();
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private static HttpSlurmTransport transport(String base, Duration requestTimeout) {
    return new HttpSlurmTransport(
        base, "root", TokenSource.fixed(TOKEN), Duration.ofSeconds(2), requestTimeout);
  }

  @Test
  void sendsAuthHeadersQueryAndBodyAndReturnsAnyStatus() throws Exception {
    AtomicReference<String> seen = new AtomicReference<>();
    String base =
        startServer(
            ex -> {
              String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
              seen.set(
                  ex.getRequestMethod()
                      + " "
                      + ex.getRequestURI()
                      + " user="
                      + ex.getRequestHeaders().getFirst("X-SLURM-USER-NAME")
                      + " token="
                      + ex.getRequestHeaders().getFirst("X-SLURM-USER-TOKEN")
                      + " type="
                      + ex.getRequestHeaders().getFirst("Content-Type")
                      + " body="
                      + body);
              byte[] out = "{\"errors\":[]}".getBytes(StandardCharsets.UTF_8);
              ex.sendResponseHeaders(500, out.length);
              ex.getResponseBody().write(out);
              ex.close();
            });
    Response r =
        transport(base, Duration.ofSeconds(5))
            .send(
                new Request(
                    "POST",
                    "/slurm/v0.0.38/job/submit",
                    Map.of("flags", List.of("A", "B c")),
                    "{\"x\":1}"));
    assertEquals(500, r.status());
    assertEquals("{\"errors\":[]}", r.body());
    assertEquals(
        "POST /slurm/v0.0.38/job/submit?flags=A&flags=B+c user=root token="
            + TOKEN
            + " type=application/json body={\"x\":1}",
        seen.get());
  }

  @Test
  void a304HasAnEmptyBody() throws Exception {
    String base =
        startServer(
            ex -> {
              ex.sendResponseHeaders(304, -1);
              ex.close();
            });
    Response r = transport(base, Duration.ofSeconds(5)).send(Request.get("/slurm/v0.0.38/nodes"));
    assertEquals(304, r.status());
    assertEquals("", r.body());
  }

  @Test
  void aSlowServerTimesOutAsUnavailable() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    String base =
        startServer(
            ex -> {
              try {
                release.await(5, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              ex.close();
            });
    try {
      SlurmUnavailableException e =
          assertThrows(
              SlurmUnavailableException.class,
              () ->
                  transport(base, Duration.ofMillis(300)).send(Request.get("/slurm/v0.0.38/ping")));
      assertTrue(e.getMessage().contains("300 ms"), e.getMessage());
      assertFalse(e.getMessage().contains(TOKEN));
    } finally {
      release.countDown();
    }
  }

  @Test
  void refusedConnectionIsUnavailable() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    SlurmUnavailableException e =
        assertThrows(
            SlurmUnavailableException.class,
            () ->
                transport("http://127.0.0.1:" + port, Duration.ofSeconds(2))
                    .send(Request.get("/slurm/v0.0.38/nodes")));
    assertTrue(e.getMessage().contains("GET /slurm/v0.0.38/nodes"), e.getMessage());
    assertFalse(e.getMessage().contains(TOKEN));
    assertTrue(e.retryable());
  }

  @Test
  void aServerDyingMidRequestIsUnavailable() throws Exception {
    // What slurmrestd 22.05 does when sent `argv`: reads the request and closes the connection.
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread t =
          new Thread(
              () -> {
                try (Socket c = s.accept()) {
                  InputStream in = c.getInputStream();
                  in.read(new byte[512]);
                } catch (Exception ignored) {
                  // the test only needs the connection gone
                }
              });
      t.start();
      SlurmUnavailableException e =
          assertThrows(
              SlurmUnavailableException.class,
              () ->
                  transport("http://127.0.0.1:" + s.getLocalPort(), Duration.ofSeconds(5))
                      .send(Request.post("/slurm/v0.0.38/job/submit", "{}")));
      assertFalse(e.getMessage().contains(TOKEN));
      t.join(5000);
    }
  }

  @Test
  void tokenProblemsSurfaceBeforeAnythingIsSent() {
    HttpSlurmTransport t =
        new HttpSlurmTransport(
            "http://127.0.0.1:9",
            "root",
            TokenSource.file(java.nio.file.Path.of("/nonexistent/token")),
            Duration.ofSeconds(1),
            Duration.ofSeconds(1));
    assertThrows(SlurmUnauthorizedException.class, () -> t.send(Request.get("/x")));
    assertFalse(t.toString().contains(TOKEN));
  }

  @Test
  void queryEncodingIsSortedAndEscaped() {
    assertEquals("", HttpSlurmTransport.query(Map.of()));
    assertEquals(
        "?a=1&b=x%2Fy&b=z",
        HttpSlurmTransport.query(Map.of("b", List.of("x/y", "z"), "a", List.of("1"))));
  }
}
