package dev.tandem.watchers;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hand-off between informer callbacks (which must never block on Temporal) and the signals they
 * cause.
 *
 * <p>Work is keyed (e.g. {@code default/gpu-a-3:pod}). For one key at most one task runs at a time,
 * and a task submitted while an older one for the same key still waits replaces it: the latest
 * state wins, so a burst of 50 pod updates costs one signal. A task that fails is retried with
 * backoff a few times unless newer work for its key arrived meanwhile; after that it is dropped,
 * its {@code onDropped} callback runs (so the submitter can forget that it asked, and ask again),
 * and the next periodic resync repairs what it missed.
 */
public final class Coalescer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Coalescer.class);

  /** A unit of work; may throw to ask for a retry. */
  @FunctionalInterface
  public interface Task {
    void run() throws Exception;
  }

  /** Counts what happened, for metrics. */
  public interface Listener {
    void coalesced(String key);

    void failed(String key, Exception e, boolean willRetry);
  }

  static final int MAX_ATTEMPTS = 5;

  private final ScheduledExecutorService pool;
  private final Listener listener;
  private final Duration firstRetry;
  private final Object lock = new Object();
  private final Map<String, Task> pending = new HashMap<>();
  private final Map<Task, Runnable> onDropped = new IdentityHashMap<>();
  private final Map<String, Integer> attempts = new HashMap<>();
  private final Set<String> running = new HashSet<>();
  private volatile boolean closed;

  public Coalescer(int threads, Duration firstRetry, Listener listener) {
    AtomicInteger n = new AtomicInteger();
    ThreadFactory tf =
        r -> {
          Thread t = new Thread(r, "tandem-signal-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    this.pool = Executors.newScheduledThreadPool(threads, tf);
    this.firstRetry = firstRetry;
    this.listener = listener;
  }

  /**
   * Queues {@code task} for {@code key}, replacing a task for the same key that has not started.
   */
  public void submit(String key, Task task) {
    submit(key, task, null);
  }

  /**
   * As {@link #submit(String, Task)}; {@code dropped} runs (on a pool thread) if the task fails on
   * every attempt and is given up. It does not run when newer work for the key replaces the task:
   * the newer work then stands for it.
   */
  public void submit(String key, Task task, Runnable dropped) {
    if (closed) {
      return;
    }
    synchronized (lock) {
      if (dropped != null) {
        onDropped.put(task, dropped);
      }
      Task replaced = pending.put(key, task);
      if (replaced != null) {
        onDropped.remove(replaced);
      }
      boolean waiting = replaced != null;
      attempts.remove(key);
      if (waiting) {
        listener.coalesced(key);
        return;
      }
      if (running.contains(key)) {
        return; // the running task reschedules its key when it ends
      }
    }
    pool.execute(() -> runKey(key));
  }

  /** Tasks waiting or running. */
  public int backlog() {
    synchronized (lock) {
      return pending.size() + running.size();
    }
  }

  private void runKey(String key) {
    Task task;
    synchronized (lock) {
      if (running.contains(key)) {
        return;
      }
      task = pending.remove(key);
      if (task == null) {
        return;
      }
      running.add(key);
    }
    Exception failure = null;
    Runnable dropped = null;
    try {
      task.run();
    } catch (Exception e) {
      failure = e;
    } catch (Error e) {
      failure = new RuntimeException(e); // keep the key usable; the error is logged below
    }
    synchronized (lock) {
      running.remove(key);
      if (failure != null && !pending.containsKey(key)) {
        int attempt = attempts.merge(key, 1, Integer::sum);
        boolean retry = attempt < MAX_ATTEMPTS && !closed;
        listener.failed(key, failure, retry);
        if (retry) {
          pending.put(key, task);
          long delay = firstRetry.toMillis() << (attempt - 1);
          schedule(key, delay);
          return;
        }
        attempts.remove(key);
        dropped = onDropped.remove(task);
        log.warn("giving up on {} after {} attempts: {}", key, attempt, failure.toString());
      } else if (failure != null) {
        listener.failed(key, failure, false);
        onDropped.remove(task); // superseded by newer work for the key
      } else {
        onDropped.remove(task);
      }
      if (pending.containsKey(key)) {
        schedule(key, 0);
      }
    }
    if (dropped != null) {
      try {
        dropped.run();
      } catch (RuntimeException e) {
        log.warn("after giving up on {}: {}", key, e.toString());
      }
    }
  }

  /**
   * Runs {@code r} on the pool after {@code delay} (e.g. to look at a key again); not if closed.
   */
  public void later(Duration delay, Runnable r) {
    if (closed) {
      return;
    }
    try {
      pool.schedule(r, delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  /** False once closed: nothing submitted runs any more. */
  public boolean open() {
    return !closed;
  }

  private void schedule(String key, long delayMillis) {
    if (closed) {
      return;
    }
    pool.schedule(() -> runKey(key), delayMillis, TimeUnit.MILLISECONDS);
  }

  /** Waits (bounded) until nothing is pending or running; for tests and orderly shutdown. */
  public boolean drain(Duration max) throws InterruptedException {
    long end = System.nanoTime() + max.toNanos();
    while (System.nanoTime() < end) {
      if (backlog() == 0) {
        return true;
      }
      Thread.sleep(10);
    }
    return backlog() == 0;
  }

  @Override
  public void close() {
    closed = true;
    pool.shutdownNow();
  }
}
