package dev.tandem.devstack.api;

import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.vertx.HttpServerRequestHandler;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * fabric8's {@link MockWebServer} with watches over plain HTTP as well as WebSocket. A real API
 * server streams a watch as one chunked HTTP response, one JSON event after another, and that is
 * what client-go uses ({@code kubectl get -w}, {@code kubectl delete}'s wait, {@code kubectl
 * wait}); the mock can only answer a request with a whole body, so it served watches over WebSocket
 * alone.
 *
 * <p>How a request is served:
 *
 * <ol>
 *   <li>A {@code GET} with {@code watch=true} (or {@code 1}), or for a pod's log with {@code
 *       follow=true}, and no {@code Upgrade: websocket} header goes to the dispatcher like any
 *       request. If the dispatcher opens a stream (its answer carries a {@code WebSocketListener}:
 *       a {@link WatchSession}, or {@link PodLogs}' follower), the answer is streamed by {@link
 *       HttpWatchStream}; any other answer (400, 404, 429, ...) is sent as it is.
 *   <li>Every other request goes to fabric8's own handler, unchanged: plain requests and WebSocket
 *       watches are served exactly as by {@link MockWebServer}.
 * </ol>
 *
 * <p>The server is the mock's own (same Vert.x instance, same options); only its request handler
 * differs, so {@link #start(InetAddress, int)}, {@link #shutdown()}, {@link #getPort()} and {@link
 * #getHostName()} are replaced. Unlike the mock, it does not keep every request in a queue nobody
 * reads.
 */
final class StreamingWebServer extends MockWebServer {
  /** The WebSocket subprotocols the mock accepts (Kubernetes' channel protocols). */
  private static final List<String> SUBPROTOCOLS =
      List.of("v1.channel.k8s.io", "v2.channel.k8s.io", "v3.channel.k8s.io", "v4.channel.k8s.io");

  private final Vertx vertx = mockVertx(this);
  private volatile Dispatcher dispatcher;
  private HttpServer http;
  private String hostName;

  @Override
  public void setDispatcher(Dispatcher dispatcher) {
    super.setDispatcher(dispatcher);
    this.dispatcher = dispatcher;
  }

  @Override
  public synchronized void start(InetAddress address, int port) {
    if (http != null) {
      throw new IllegalStateException("start() already called");
    }
    hostName = "0.0.0.0".equals(address.getHostName()) ? "localhost" : address.getHostName();
    HttpServerRequestHandler mock =
        new HttpServerRequestHandler(vertx) {
          @Override
          protected MockResponse onHttpRequest(RecordedRequest request) {
            return dispatcher.dispatch(request);
          }
        };
    HttpServerOptions options =
        new HttpServerOptions()
            .setHost(address.getHostAddress())
            .setPort(port)
            .setWebSocketSubProtocols(SUBPROTOCOLS)
            .setHandle100ContinueAutomatically(true);
    http =
        await(
            vertx
                .createHttpServer(options)
                .requestHandler(
                    (HttpServerRequest r) -> {
                      if (HttpWatchStream.wanted(r)) {
                        HttpWatchStream.serve(r, dispatcher);
                      } else {
                        mock.handle(r);
                      }
                    })
                .listen());
  }

  @Override
  public synchronized void shutdown() {
    try {
      if (http != null) {
        await(http.close());
      }
      if (dispatcher != null) {
        dispatcher.shutdown();
      }
    } finally {
      await(vertx.close());
    }
  }

  @Override
  public int getPort() {
    if (http == null) {
      throw new IllegalStateException("not started");
    }
    return http.actualPort();
  }

  @Override
  public String getHostName() {
    return hostName;
  }

  private static <T> T await(Future<T> f) {
    try {
      return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("local API server: " + e.getMessage(), e);
    }
  }

  /**
   * The Vert.x instance the mock made in its constructor (a private field): reusing it keeps one
   * set of event-loop threads, and closing it in {@link #shutdown()} frees them.
   */
  private static Vertx mockVertx(MockWebServer server) {
    try {
      Field f = MockWebServer.class.getDeclaredField("vertx");
      f.setAccessible(true);
      return (Vertx) f.get(server);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("fabric8 MockWebServer has no vertx field any more", e);
    }
  }
}
