package dev.tandem.devstack.api;

import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One watch streamed over plain HTTP, as a real API server streams it: {@code 200}, {@code
 * Content-Type: application/json}, chunked, one JSON watch event per line, until the server ends
 * the watch ({@code timeoutSeconds}, an expired resourceVersion, the server going away) or the
 * client hangs up. A followed pod log ({@link PodLogs}) streams the same way, as {@code text/plain}
 * bytes.
 *
 * <p>It stands in for the WebSocket that {@link WatchSession} was written for: a {@code send} is a
 * line written, a {@code close} ends the response, and the client hanging up is the WebSocket's
 * {@code onClosed}. So both transports share every rule of a watch (selectors, the resume window,
 * {@code 410 Expired}, tables).
 */
final class HttpWatchStream implements WebSocket {
  private final RecordedRequest request;
  private final HttpServerResponse out;
  private volatile boolean closed;

  private HttpWatchStream(RecordedRequest request, HttpServerResponse out) {
    this.request = request;
    this.out = out;
  }

  /**
   * A stream asked for over plain HTTP: a GET without WebSocket upgrade that is a watch ({@code
   * watch=true|1}) or follows a pod's log ({@code pods/{name}/log?follow=true}, {@link PodLogs}).
   */
  static boolean wanted(HttpServerRequest r) {
    if (r.method() != io.vertx.core.http.HttpMethod.GET
        || "websocket".equalsIgnoreCase(r.getHeader("Upgrade"))) {
      return false;
    }
    String w = r.getParam("watch");
    boolean follow = r.path().endsWith("/log") && "true".equals(r.getParam("follow"));
    return follow || "true".equals(w) || "1".equals(w);
  }

  /** Dispatches the request; streams the watch it opens, or sends the dispatcher's answer. */
  static void serve(HttpServerRequest r, Dispatcher dispatcher) {
    RecordedRequest recorded =
        new RecordedRequest(
            r.version().alpnName().toUpperCase(Locale.ROOT),
            HttpMethod.GET,
            r.uri(),
            Headers.builder().addAll(r.headers()).build(),
            null);
    MockResponse answer = dispatcher.dispatch(recorded);
    HttpServerResponse out = r.response();
    WebSocketListener watch = answer.getWebSocketListener();
    if (watch == null) {
      out.setStatusCode(answer.code());
      for (Map.Entry<String, List<String>> h : answer.getHeaders().toMultimap().entrySet()) {
        out.putHeader(h.getKey(), h.getValue());
      }
      out.end(Buffer.buffer(answer.getBody() == null ? new byte[0] : answer.getBody().getBytes()));
      return;
    }
    HttpWatchStream stream = new HttpWatchStream(recorded, out);
    String type = answer.getHeaders().get("Content-Type");
    out.setStatusCode(200)
        .setChunked(true)
        .putHeader("Content-Type", type == null ? "application/json" : type);
    out.closeHandler(v -> stream.hungUp(watch));
    out.exceptionHandler(e -> stream.hungUp(watch));
    out.writeHead();
    watch.onOpen(stream, answer);
  }

  /** The client went away: the watch ends as a WebSocket's does when its peer closes it. */
  private void hungUp(WebSocketListener watch) {
    if (!closed) {
      closed = true;
      watch.onClosed(this, 1001, "client closed the watch");
    }
  }

  @Override
  public RecordedRequest request() {
    return request;
  }

  @Override
  public boolean send(String text) {
    return write(Buffer.buffer(text).appendString("\n"));
  }

  @Override
  public boolean send(byte[] bytes) {
    return write(Buffer.buffer(bytes));
  }

  private boolean write(Buffer b) {
    if (closed) {
      return false;
    }
    try {
      out.write(b);
      return true;
    } catch (IllegalStateException e) { // ended or the connection gone meanwhile
      closed = true;
      return false;
    }
  }

  @Override
  public boolean close(int code, String reason) {
    if (closed) {
      return false;
    }
    closed = true;
    try {
      out.end();
    } catch (IllegalStateException e) {
      // already ended or the connection gone: nothing left to close
    }
    return true;
  }
}
