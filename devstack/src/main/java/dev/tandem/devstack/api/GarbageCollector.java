package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.Store.Stored;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
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

  /** One object, as the worker finds it again (a different uid under that name is another). */
  record Ident(
      String group, String version, String plural, String namespace, String name, String uid) {
    static Ident of(ResourceType t, Stored s) {
      return new Ident(t.group(), t.version(), t.plural(), s.namespace(), s.name(), s.uid());
    }
  }

  /** One owner reference of a dependent. */
  record Ref(String apiVersion, String kind, String name, String uid, boolean block) {
    static List<Ref> of(JsonNode obj) {
      List<Ref> out = new ArrayList<>();
      if (obj == null) {
        return out;
      }
      for (JsonNode r : obj.path("metadata").path("ownerReferences")) {
        out.add(
            new Ref(
                r.path("apiVersion").asText(),
                r.path("kind").asText(),
                r.path("name").asText(),
                r.path("uid").asText(),
                r.path("blockOwnerDeletion").asBoolean(false)));
      }
      return out;
    }

    boolean sameOwner(Ref o) {
      return uid.equals(o.uid)
          && apiVersion.equals(o.apiVersion)
          && kind.equals(o.kind)
          && name.equals(o.name);
    }
  }

  /** Work for the worker. */
  sealed interface Item {}

  /** The GC's attemptToDeleteItem for one object. */
  record AttemptDelete(Ident item) implements Item {}

  /** The GC's attemptToOrphan: strip the owner from its dependents, then drop {@code orphan}. */
  record Orphan(Ident owner) implements Item {}

  /** Every object that references this uid gets an {@link AttemptDelete}. */
  record DependentsOf(String uid) implements Item {}

  /** An owner that may have stopped waiting for its dependents (one went or stopped blocking). */
  record OwnerCheck(Ref ref, String dependentNamespace) implements Item {}

  private final Lock writeLock;
  private final LinkedHashSet<Item> queue = new LinkedHashSet<>();
  private final Thread worker;
  private GcAttempts attempts;
  private boolean busy;
  private volatile boolean closed;
  private volatile Context context;

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
    if (now == null) {
      String uid = Json.text(old, "metadata", "uid");
      if (uid != null) {
        attempts.recordAbsent(uid);
        enqueue(new DependentsOf(uid));
      }
      String ns = Json.text(old, "metadata", "namespace");
      Ref.of(old).forEach(r -> enqueue(new OwnerCheck(r, ns)));
      return;
    }
    String ns = Json.text(now, "metadata", "namespace");
    Ident self =
        new Ident(
            t.group(),
            t.version(),
            t.plural(),
            ns,
            Json.text(now, "metadata", "name"),
            Json.text(now, "metadata", "uid"));
    List<Ref> before = Ref.of(old);
    List<Ref> after = Ref.of(now);
    for (Ref r : after) {
      if (before.stream().noneMatch(r::sameOwner)) {
        enqueue(new AttemptDelete(self)); // a new owner: it may not exist (any more)
      }
    }
    for (Ref r : before) {
      Ref kept = after.stream().filter(a -> a.uid().equals(r.uid())).findFirst().orElse(null);
      if (r.block() && (kept == null || !kept.block())) {
        enqueue(new OwnerCheck(r, ns));
      }
    }
    if (startsWaiting(old, now, Deletes.ORPHAN_FINALIZER)) {
      enqueue(new Orphan(self));
    } else if (startsWaiting(old, now, Deletes.FOREGROUND_FINALIZER)) {
      enqueue(new DependentsOf(self.uid()));
      enqueue(new AttemptDelete(self));
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

  synchronized void enqueue(Item item) {
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
      Item item;
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
  private void runOnEventLoop(Item item) {
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

  private void handle(Item item) {
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
