package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Lock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * kube-controller-manager's garbage collector, as far as the local API needs it: it runs apart from
 * the API call that triggered it, on one thread, like the real controller's workers.
 *
 * <ol>
 *   <li>{@link #observe} is the graph builder: the {@link Store} calls it for every write (under
 *       the write lock) and it only enqueues work. A removed object: its dependents are attempted
 *       (see {@link GcAttempts#attemptToDelete}) and its owners re-checked (one waiting for its
 *       dependents may now go). An object whose owner references gain an entry: the object is
 *       attempted (its owner may be absent already). A reference dropped or made non-blocking: that
 *       owner is re-checked. An object that starts deleting with {@code foregroundDeletion}: its
 *       dependents and the object are attempted; with {@code orphan}: it is orphaned.
 *   <li>One worker takes the items in order (duplicates are merged, as in a client-go work queue)
 *       and handles each under the dispatcher's write lock, so clients see the owner with {@code
 *       deletionTimestamp} and the GC finalizer until the worker gets to it (typically a few
 *       milliseconds), and every change it makes is an ordinary write with its watch event.
 * </ol>
 */
final class GarbageCollector implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GarbageCollector.class);

  private final Lock writeLock;
  private final LinkedHashSet<GcItem> queue = new LinkedHashSet<>();
  private final Thread worker;
  private GcAttempts attempts;
  private boolean busy;
  private volatile boolean closed;
  private volatile Context context;

  /**
   * How many stored objects reference each owner uid (only touched under the write lock): an object
   * nobody references has no dependents to look for, which spares a scan of the store.
   */
  private final Map<String, Integer> referenced = new HashMap<>();

  GarbageCollector(Lock writeLock) {
    this.writeLock = writeLock;
    this.worker = new Thread(this::run, "local-api-gc");
    worker.setDaemon(true);
  }

  void start(GcAttempts attempts) {
    this.attempts = attempts;
    worker.start();
  }

  /** Called by the store after every write, under the write lock; only enqueues. */
  void observe(ResourceType t, ObjectNode old, ObjectNode now) {
    if (attempts == null || t.createOnly()) {
      return;
    }
    Context ctx = Vertx.currentContext();
    if (ctx != null) {
      context = ctx;
    }
    List<GcItem.Ref> before = GcItem.Ref.of(old);
    List<GcItem.Ref> after = GcItem.Ref.of(now);
    before.forEach(r -> referenced.merge(r.uid(), -1, (a, b) -> a + b == 0 ? null : a + b));
    after.forEach(r -> referenced.merge(r.uid(), 1, Integer::sum));
    if (now == null) {
      String uid = Json.text(old, "metadata", "uid");
      if (uid != null) {
        attempts.recordAbsent(uid);
        if (referenced.containsKey(uid)) {
          enqueue(new GcItem.DependentsOf(uid));
        }
      }
      String ns = Json.text(old, "metadata", "namespace");
      GcItem.Ref.of(old).forEach(r -> enqueue(new GcItem.OwnerCheck(r, ns)));
      if (PodGc.isNode(t)) {
        enqueue(new GcItem.PodsOfNode(Json.text(old, "metadata", "name")));
      }
      return;
    }
    String ns = Json.text(now, "metadata", "namespace");
    GcItem.Ident self =
        new GcItem.Ident(
            t.group(),
            t.version(),
            t.plural(),
            ns,
            Json.text(now, "metadata", "name"),
            Json.text(now, "metadata", "uid"));
    for (GcItem.Ref r : after) {
      if (before.stream().noneMatch(r::sameOwner)) {
        enqueue(new GcItem.AttemptDelete(self)); // a new owner: it may not exist (any more)
      }
    }
    for (GcItem.Ref r : before) {
      GcItem.Ref kept =
          after.stream().filter(a -> a.uid().equals(r.uid())).findFirst().orElse(null);
      if (r.block() && (kept == null || !kept.block())) {
        enqueue(new GcItem.OwnerCheck(r, ns));
      }
    }
    if (startsWaiting(old, now, Deletes.ORPHAN_FINALIZER)) {
      enqueue(new GcItem.Orphan(self));
    } else if (startsWaiting(old, now, Deletes.FOREGROUND_FINALIZER)) {
      if (referenced.containsKey(self.uid())) {
        enqueue(new GcItem.DependentsOf(self.uid()));
      }
      enqueue(new GcItem.AttemptDelete(self));
    }
  }

  private static boolean startsWaiting(ObjectNode old, ObjectNode now, String finalizer) {
    if (!deletingWith(now, finalizer)) {
      return false;
    }
    return old == null || !deletingWith(old, finalizer);
  }

  static boolean deletingWith(JsonNode obj, String finalizer) {
    return Json.text(obj, "metadata", "deletionTimestamp") != null
        && Deletes.hasFinalizer(obj, finalizer);
  }

  synchronized void enqueue(GcItem item) {
    queue.add(item);
    notifyAll();
  }

  /** Waits until nothing is queued or running; false if that did not happen within {@code max}. */
  synchronized boolean awaitIdle(Duration max) throws InterruptedException {
    long end = System.nanoTime() + max.toNanos();
    while (busy || !queue.isEmpty()) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return true;
  }

  private void run() {
    while (!closed) {
      GcItem item;
      synchronized (this) {
        while (queue.isEmpty() && !closed) {
          try {
            wait();
          } catch (InterruptedException e) {
            return;
          }
        }
        if (closed) {
          return;
        }
        item = queue.iterator().next();
        queue.remove(item);
        busy = true;
      }
      try {
        runOnEventLoop(item);
      } finally {
        synchronized (this) {
          busy = false;
          notifyAll();
        }
      }
    }
  }

  /**
   * Handles one item on a Vert.x event loop of the server, as requests are handled: the mock's
   * WebSocket send waits for the write to complete when called from any other thread, and with the
   * write lock held that could stall the server until it times out (30 s).
   */
  private void runOnEventLoop(GcItem item) {
    Context ctx = context;
    if (ctx == null) {
      handle(item); // no request was ever served, so no watch is open
      return;
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    ctx.runOnContext(
        v -> {
          try {
            handle(item);
          } finally {
            done.complete(null);
          }
        });
    while (!closed) {
      try {
        done.get(1, TimeUnit.SECONDS);
        return;
      } catch (TimeoutException e) {
        // the event loop is busy (or the server is stopping): look again
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException e) {
        return; // handle() catches everything; nothing to report
      }
    }
  }

  private void handle(GcItem item) {
    writeLock.lock();
    try {
      attempts.handle(item);
    } catch (RuntimeException e) {
      log.warn("garbage collector failed on {}", item, e);
    } finally {
      writeLock.unlock();
    }
  }

  @Override
  public void close() {
    closed = true;
    worker.interrupt();
    try {
      worker.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
