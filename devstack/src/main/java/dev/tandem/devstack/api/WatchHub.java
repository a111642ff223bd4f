package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * Watches (over WebSocket, what fabric8 informers use, or streamed over HTTP, what client-go uses:
 * {@link HttpWatchStream}), with real API semantics instead of the mock's: label and field
 * selectors apply (an object leaving the selector is a DELETED event, one entering it an ADDED
 * event), a watch from a resourceVersion replays what happened since from a bounded window of
 * recent events (older than the window: {@code 410 Expired}, and the informer relists), and closing
 * a watch never blocks the server (the mock's listener could freeze it for 10-60 s).
 */
final class WatchHub {
  /** One change: {@code newObj} is null for a deletion ({@code oldObj} then has the delete RV). */
  record Event(ResourceType type, ObjectNode oldObj, ObjectNode newObj, long rv) {}

  static final int MAX_WATCHES = 1000;

  private final ReadWriteLock lock;
  private final ScheduledExecutorService timer;
  private final int capacity;
  private final ArrayDeque<Event> window = new ArrayDeque<>();
  private final Set<WatchSession> sessions = ConcurrentHashMap.newKeySet();
  private long droppedUpTo;
  private Store store;

  WatchHub(ReadWriteLock lock, ScheduledExecutorService timer, int capacity) {
    this.lock = lock;
    this.timer = timer;
    this.capacity = capacity;
  }

  void setStore(Store store) {
    this.store = store;
  }

  /** Called by the store with the write lock held. */
  void publish(ResourceType type, ObjectNode oldObj, ObjectNode newObj, long rv) {
    Event e = new Event(type, oldObj, newObj, rv);
    window.addLast(e);
    while (window.size() > capacity) {
      droppedUpTo = window.removeFirst().rv();
    }
    for (WatchSession s : sessions) {
      s.offer(e);
    }
  }

  /**
   * Opens a watch; {@code asTable}: each object is sent as a one-row Table ({@code Accept:
   * ...;as=Table}, what {@code kubectl get -w} asks for).
   */
  MockResponse open(ResourceType type, ApiRequest req, boolean asTable) {
    if (sessions.size() >= MAX_WATCHES) {
      throw new ApiException(
          429,
          "TooManyRequests",
          "too many open watches (" + MAX_WATCHES + "); close some",
          null,
          null,
          null,
          null);
    }
    LabelSelector labels = LabelSelector.parse(req.param("labelSelector"));
    FieldSelector fields = FieldSelector.parse(req.param("fieldSelector"), type);
    String rv = req.param("resourceVersion");
    Long from = null;
    if (rv != null && !rv.isEmpty() && !rv.equals("0")) {
      try {
        from = Long.parseLong(rv);
      } catch (NumberFormatException e) {
        throw ApiException.badRequest("resourceVersion: Invalid value: " + Json.quote(rv));
      }
    }
    String name = req.name != null ? req.name : fields.pinnedName();
    Integer timeout = null;
    if (req.param("timeoutSeconds") != null) {
      try {
        timeout = Integer.parseInt(req.param("timeoutSeconds"));
      } catch (NumberFormatException e) {
        throw ApiException.badRequest(
            "timeoutSeconds: Invalid value: " + req.param("timeoutSeconds"));
      }
    }
    WatchSession s =
        new WatchSession(
            this,
            type,
            req.namespace,
            name,
            labels,
            fields,
            from,
            req.flag("sendInitialEvents"),
            timeout,
            asTable);
    return new MockResponse().withWebSocketUpgrade(s);
  }

  /** Runs the session's initial sync and registers it, atomically with respect to writes. */
  void start(WatchSession s) {
    lock.readLock().lock();
    try {
      if (s.from() == null) {
        for (Store.Stored st : store.list(s.type(), s.namespace())) {
          s.initial(st.obj());
        }
        if (s.sendInitialEvents()) {
          s.initialEventsEnd(store.currentRv());
        }
      } else if (s.from() < droppedUpTo) {
        s.expired(s.from(), droppedUpTo);
        return;
      } else {
        List<Event> replay = new ArrayList<>();
        for (Event e : window) {
          if (e.rv() > s.from()) {
            replay.add(e);
          }
        }
        replay.forEach(s::offer);
      }
      sessions.add(s);
      if (s.isClosed()) {
        sessions.remove(s); // closed while syncing
        return;
      }
    } finally {
      lock.readLock().unlock();
    }
    s.armTimeout(timer);
  }

  void remove(WatchSession s) {
    sessions.remove(s);
  }

  int openWatches() {
    return sessions.size();
  }

  /** Closes every open watch, as an API server going away does. */
  void dropAll() {
    for (WatchSession s : List.copyOf(sessions)) {
      s.drop();
    }
  }
}
