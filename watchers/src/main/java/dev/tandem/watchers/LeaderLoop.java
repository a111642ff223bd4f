package dev.tandem.watchers;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Competes for the watchers' Lease for as long as the process runs: a replica that loses the lease,
 * or whose election fails, stops watching and competes again.
 *
 * <p>fabric8's {@code LeaderElector} (7.8.0) runs once. Its {@code start()} future completes when a
 * leader stops renewing (the renew deadline passed, or the Lease names another holder), after
 * {@code onStopLeading}; it never completes when the acquire loop dies of anything but a {@code
 * KubernetesClientException}, and it checks the renew deadline only between two calls, so a renewal
 * that hangs keeps it "leading" past the lease duration, when another replica may take over. Hence:
 *
 * <ol>
 *   <li>A <em>round</em> is one elector with a fresh {@link WatchedLeaseLock}. fabric8's callbacks
 *       only hand over: starting to watch runs on the leadership thread (it waits for the pod cache
 *       and must not hold fabric8's thread), and is skipped if the round is over by then.
 *   <li>A round ends when its future completes, when fabric8 says it stopped leading, or when the
 *       watchdog (every half retry period) sees that this replica leads but has not written the
 *       Lease for longer than the renew deadline (a hung renewal), or that the elector has not
 *       called the lock for longer than lease duration + renew deadline (a dead elector).
 *   <li>At the end of a round the watchers stop (a start still waiting for its caches is
 *       interrupted first), the elector is cancelled (which releases the Lease if it can), and a
 *       new round starts: one retry period after a round that led, otherwise after a delay that
 *       doubles from the retry period up to {@link #MAX_BACKOFF}.
 * </ol>
 */
final class LeaderLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaderLoop.class);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  /** What leadership switches on and off. */
  interface Target {
    void startLeading();

    void stopLeading(String why);
  }

  private final KubernetesClient k8s;
  private final Watchers.Lease lease;
  private final WatcherMetrics metrics;
  private final Target target;
  private final Duration tick;
  private final ScheduledExecutorService loop = DaemonThreads.scheduler("tandem-leader-election");
  private final ExecutorService leadership = DaemonThreads.scheduler("tandem-leadership");
  private final ExecutorService cancels = DaemonThreads.scheduler("tandem-leader-cancel");

  // Guarded by this.
  private ElectionRound current;
  private int rounds;
  private Duration backoff;
  private boolean closed;
  private Thread starting;

  private volatile long lastWatchdogNanos = System.nanoTime();

  LeaderLoop(KubernetesClient k8s, Watchers.Lease lease, WatcherMetrics metrics, Target target) {
    this.k8s = k8s;
    this.lease = lease;
    this.metrics = metrics;
    this.target = target;
    this.tick = Duration.ofMillis(Math.max(100, lease.retryPeriod().toMillis() / 2));
    this.backoff = lease.retryPeriod();
  }

  void start() {
    loop.execute(this::startRound);
    loop.scheduleWithFixedDelay(
        this::watchdog, tick.toMillis(), tick.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void startRound() {
    ElectionRound r;
    synchronized (this) {
      if (closed) {
        return;
      }
      r = new ElectionRound(++rounds, lease);
      current = r;
    }
    try {
      r.start(
              k8s,
              () -> started(r),
              () -> ended(r, "lost", "stopped leading"),
              l -> newLeader(r, l))
          .whenComplete(
              (v, t) ->
                  ended(
                      r,
                      t == null ? "lost" : "error",
                      t == null ? "could not renew the lease" : "election failed: " + t));
    } catch (RuntimeException e) {
      ended(r, "error", "election failed to start: " + e);
    }
  }

  private void started(ElectionRound r) {
    synchronized (this) {
      if (r != current || r.over || closed || r.leading) {
        return;
      }
      r.leading = true;
      backoff = lease.retryPeriod();
    }
    metrics.leadershipAcquired();
    log.info(
        "{} holds the watchers' lease {}/{}", lease.identity(), lease.namespace(), lease.name());
    run(
        leadership,
        () -> {
          synchronized (this) {
            if (r != current || r.over || closed) {
              return; // lost before it could start
            }
            starting = Thread.currentThread();
          }
          try {
            target.startLeading();
          } catch (RuntimeException e) {
            log.error("starting the watchers failed", e);
          } finally {
            synchronized (this) {
              starting = null;
            }
            Thread.interrupted(); // an interrupt meant for the start it ended
          }
        });
  }

  private void newLeader(ElectionRound r, String leader) {
    r.leader = leader;
    if (leader != null && !leader.isEmpty() && !leader.equals(lease.identity())) {
      log.info("the watchers' leader is {}", leader);
    }
  }

  /** Ends a round once, whoever notices first; stops watching if it led; schedules the next. */
  private void ended(ElectionRound r, String outcome, String why) {
    boolean led;
    Duration delay;
    synchronized (this) {
      if (r.over) {
        return;
      }
      r.over = true;
      led = r.leading;
      r.leading = false;
      if (led) {
        delay = lease.retryPeriod();
      } else {
        delay = backoff;
        backoff = min(backoff.multipliedBy(2), MAX_BACKOFF);
      }
      if (led && starting != null) {
        starting.interrupt(); // a start still waiting for caches: give up on it now
      }
    }
    boolean taken = r.taken();
    String reason = taken ? "taken" : outcome;
    if (led) {
      Duration since = r.lock.sinceLastWrite();
      String message =
          why
              + (taken ? " (now held by " + r.leader + ")" : "")
              + (since == null ? "" : "; last renewed " + since.toMillis() + "ms ago");
      metrics.leadershipLost(reason);
      if ("shutdown".equals(outcome)) {
        log.info("{} releases the watchers' lease", lease.identity());
      } else {
        log.warn("{} lost the watchers' lease: {}; stops watching", lease.identity(), message);
      }
      run(
          leadership,
          () -> {
            Thread.interrupted();
            target.stopLeading(message);
          });
    } else if (!"lost".equals(outcome) && !"shutdown".equals(outcome)) {
      metrics.electionRestart(outcome);
      log.warn("leader election round {} ended: {}; competing again in {}", r.id, why, delay);
    }
    CompletableFuture<?> f = r.future;
    if (f != null && !f.isDone()) {
      // Cancelling releases the lease through the API: not on fabric8's or the loop's thread.
      run(cancels, () -> f.cancel(true));
    }
    synchronized (this) {
      if (!closed) {
        try {
          loop.schedule(this::startRound, delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
          // closing
        }
      }
    }
  }

  private static void run(ExecutorService on, Runnable r) {
    try {
      on.execute(r);
    } catch (RejectedExecutionException e) {
      // closing
    }
  }

  private void watchdog() {
    lastWatchdogNanos = System.nanoTime();
    try {
      ElectionRound r;
      boolean leading;
      synchronized (this) {
        r = current;
        leading = r != null && r.leading;
      }
      if (r == null || r.over) {
        return;
      }
      String why = r.verdict(leading);
      if (why != null) {
        ended(r, leading ? "lost" : "stalled", why);
      }
    } catch (RuntimeException e) {
      log.warn("leader election watchdog: {}", e.toString());
    }
  }

  /** Null while the loop runs; otherwise why not (for {@code /healthz}). */
  String problem() {
    synchronized (this) {
      if (closed) {
        return null;
      }
    }
    long quiet = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastWatchdogNanos);
    if (loop.isShutdown() || quiet > 3 * tick.toMillis() + 5000) {
      return "the leader election loop stopped (last ran " + quiet / 1000 + "s ago)";
    }
    return null;
  }

  @Override
  public void close() {
    ElectionRound r;
    synchronized (this) {
      closed = true;
      r = current;
    }
    loop.shutdownNow();
    if (r != null) {
      ended(r, "shutdown", "shutting down");
      CompletableFuture<?> f = r.future;
      if (f != null) {
        f.cancel(true); // releases the lease now, so another replica takes over at once
      }
    }
    leadership.shutdown();
    try {
      leadership.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    cancels.shutdown();
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
