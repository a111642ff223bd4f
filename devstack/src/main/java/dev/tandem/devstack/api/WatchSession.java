package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One open watch. Events are sent from Vert.x event-loop threads (the initial sync in {@link
 * #onOpen}, later events from the writing request), where the mock's WebSocket send does not block.
 */
final class WatchSession extends WebSocketListener {
  private final WatchHub hub;
  private final ResourceType type;
  private final String namespace;
  private final String name;
  private final LabelSelector labels;
  private final FieldSelector fields;
  private final Long from;
  private final boolean sendInitialEvents;
  private final Integer timeoutSeconds;
  private final boolean asTable;
  private volatile WebSocket ws;
  private volatile boolean closed;

  WatchSession(
      WatchHub hub,
      ResourceType type,
      String namespace,
      String name,
      LabelSelector labels,
      FieldSelector fields,
      Long from,
      boolean sendInitialEvents,
      Integer timeoutSeconds,
      boolean asTable) {
    this.hub = hub;
    this.type = type;
    this.namespace = namespace;
    this.name = name;
    this.labels = labels;
    this.fields = fields;
    this.from = from;
    this.sendInitialEvents = sendInitialEvents;
    this.timeoutSeconds = timeoutSeconds;
    this.asTable = asTable;
  }

  ResourceType type() {
    return type;
  }

  String namespace() {
    return namespace;
  }

  Long from() {
    return from;
  }

  boolean sendInitialEvents() {
    return sendInitialEvents;
  }

  boolean isClosed() {
    return closed;
  }

  @Override
  public void onOpen(WebSocket webSocket, Response response) {
    this.ws = webSocket;
    hub.start(this);
  }

  @Override
  public void onClosing(WebSocket webSocket, int code, String reason) {
    close(code, reason);
  }

  @Override
  public void onClosed(WebSocket webSocket, int code, String reason) {
    closed = true;
    hub.remove(this);
  }

  @Override
  public void onFailure(WebSocket webSocket, Throwable error, Response response) {
    closed = true;
    hub.remove(this);
  }

  void armTimeout(ScheduledExecutorService timer) {
    if (timeoutSeconds != null && timeoutSeconds > 0) {
      timer.schedule(() -> close(1000, "watch timeout"), timeoutSeconds, TimeUnit.SECONDS);
    }
  }

  /** Closes this watch as a server going away does (clients reconnect). */
  void drop() {
    close(1001, "going away");
  }

  private void close(int code, String reason) {
    closed = true;
    hub.remove(this);
    WebSocket w = ws;
    if (w != null) {
      w.close(code, reason);
    }
  }

  void initial(ObjectNode obj) {
    if (matches(obj)) {
      send("ADDED", obj);
    }
  }

  /** The bookmark that ends the initial events of a {@code sendInitialEvents=true} watch. */
  void initialEventsEnd(long rv) {
    ObjectNode o = Json.object();
    o.put("kind", type.kind());
    o.put("apiVersion", type.apiVersion());
    ObjectNode meta = o.putObject("metadata");
    meta.put("resourceVersion", String.valueOf(rv));
    meta.putObject("annotations").put("k8s.io/initial-events-end", "true");
    send("BOOKMARK", o);
  }

  void expired(long requested, long oldest) {
    ObjectNode status =
        new ApiException(
                410,
                "Expired",
                "too old resource version: " + requested + " (" + oldest + ")",
                null,
                null,
                null,
                null)
            .toStatus();
    send("ERROR", status);
    close(1000, "expired");
  }

  /** Translates a change into what this watch must see, as the API server's watch cache does. */
  void offer(WatchHub.Event e) {
    if (closed || !sameType(e.type())) {
      return;
    }
    boolean oldPasses = e.oldObj() != null && matches(e.oldObj());
    boolean newPasses = e.newObj() != null && matches(e.newObj());
    if (newPasses) {
      send(oldPasses ? "MODIFIED" : "ADDED", e.newObj());
    } else if (oldPasses) {
      ObjectNode last = e.oldObj().deepCopy();
      Json.meta(last).put("resourceVersion", String.valueOf(e.rv()));
      send("DELETED", last);
    }
  }

  private boolean sameType(ResourceType t) {
    return t.group().equals(type.group())
        && t.version().equals(type.version())
        && t.plural().equals(type.plural());
  }

  private boolean matches(ObjectNode obj) {
    if (namespace != null
        && type.namespaced()
        && !namespace.equals(Json.text(obj, "metadata", "namespace"))) {
      return false;
    }
    if (name != null && !Objects.equals(name, Json.text(obj, "metadata", "name"))) {
      return false;
    }
    return labels.matches(obj) && fields.matches(obj);
  }

  private void send(String eventType, ObjectNode obj) {
    WebSocket w = ws;
    if (w == null || closed) {
      return;
    }
    ObjectNode ev = Json.object();
    ev.put("type", eventType);
    boolean change = !"ERROR".equals(eventType) && !"BOOKMARK".equals(eventType);
    ev.set("object", asTable && change ? asTable(obj) : obj);
    w.send(Json.write(ev));
  }

  /** The object as a one-row Table, as a real API server sends it to a client that asked. */
  private ObjectNode asTable(ObjectNode obj) {
    String rv = Json.text(obj, "metadata", "resourceVersion");
    return Tables.table(type, List.of(obj), rv == null ? 0 : Long.parseLong(rv), null);
  }
}
