package dev.tandem.devstack.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TcpProxyTest {
  private static final String BODY = "x".repeat(10_000);
  private HttpServer server;
  private TcpProxy proxy;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        ex -> {
          byte[] b = BODY.getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, b.length);
          ex.getResponseBody().write(b);
          ex.close();
        });
    server.start();
    proxy = TcpProxy.start("127.0.0.1", server.getAddress().getPort(), 0);
  }

  @AfterEach
  void stop() {
    proxy.close();
    server.stop(0);
  }

  private HttpResponse<String> get() throws IOException, InterruptedException {
    // A new client per call: no pooled connection hides what the proxy does to new ones.
    HttpClient c = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    return c.send(
        HttpRequest.newBuilder(URI.create("http://" + proxy.address() + "/"))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void passesRefusesAndPassesAgainOnTheSamePort() throws Exception {
    assertEquals(BODY, get().body());
    int port = proxy.port();
    proxy.refuse();
    assertThrows(ConnectException.class, this::get);
    proxy.pass();
    assertEquals(port, proxy.port());
    assertEquals(BODY, get().body());
  }

  @Test
  void cutsResponsesMidBody() throws Exception {
    proxy.cutResponses(100);
    IOException e = assertThrows(IOException.class, this::get);
    assertTrue(proxy.cutConnections() >= 1, "a connection was cut: " + e);
    proxy.pass();
    assertEquals(BODY, get().body());
  }
}
