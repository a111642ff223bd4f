package dev.tandem.watchers;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.SlurmNodeView;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls slurmrestd and turns what changed into signals (nodes: {@link SlurmNodeTracker}; jobs:
 * {@link SlurmJobTracker}): {@code slurmObserved} to the node workflow of each Tandem-managed Slurm
 * node, {@code jobObserved} to the workflow that owns a placeholder job (found from the job's tag
 * by {@link JobRoutes}), {@code demandObserved} to autoscaled NodeSets ({@link DemandFeed}), the
 * cancelling of placeholder jobs no workflow owns ({@link OrphanJobs}), and the mirror of
 * administrators' drains onto pods.
 *
 * <ol>
 *   <li>Every interval (default 2 s) list nodes and jobs incrementally: an unchanged cluster costs
 *       one 304 each. While a pod waits for Slurm to place it ({@link JobRoutes#podsWaiting}), jobs
 *       are listed every pending interval (default 250 ms) instead, so a placeholder's start is
 *       seen, and its pod bound, within a fraction of a second; nodes stay on the interval.
 *   <li>Diff against the last view by state, flags, reason and slurmd start; only differences
 *       become signals. Every {@code fullResync} the whole view is listed, so a missed change is
 *       repaired; every node's view is sent again on one full listing in {@link
 *       SlurmNodeTracker#RESEND_ALL_EVERY} (the others send what differs), so the cost at rest does
 *       not grow with the fleet.
 *   <li>When slurmrestd cannot be reached, say so once (log, {@code tandem_slurm_up} 0, the
 *       reachability listener) and keep trying every interval (never the pending interval): a
 *       failed poll costs one request, no more than a poll at rest, so backing off would save
 *       nothing and only hide Slurm's return (it did, for up to 30 s). The first poll that answers
 *       lists everything, since changes were missed, and reports Slurm reachable. Nothing is
 *       signalled from a failed poll: unknown is not "idle".
 *   <li>The last views are remembered as soon as they are read, but a signal the coalescer gives up
 *       on (Temporal unreachable) is marked undelivered: the next changed listing sends it again,
 *       and so does every full resync. A node or job that vanished from Slurm while its last signal
 *       was lost keeps a tombstone until that signal is accepted, so its end is not lost.
 *   <li>Every job poll that answers also goes to the {@link DemandFeed}: each autoscaled NodeSet
 *       gets {@code demandObserved} when what the queue asks of it differs from what it was last
 *       sent (and at the first poll after it became autoscaled), and again on every full listing.
 * </ol>
 */
public final class SlurmPoller implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SlurmPoller.class);

  private final WatcherMetrics metrics;
  private final Duration interval;
  private final Duration fullResync;
  private final Clock clock;
  private volatile Duration pendingInterval = Duration.ZERO;
  private Instant lastNodes = Instant.EPOCH;

  private final SlurmNodeTracker nodes;
  private final SlurmJobTracker jobs;
  private Instant lastFull = Instant.EPOCH;
  private volatile Instant downSince;
  private volatile boolean closed;
  private volatile Thread thread;
  private volatile Throwable died;
  private volatile ReachabilityListener reachability = (component, reachable, message) -> {};

  public SlurmPoller(
      SlurmClient slurm,
      PodWatcher pods,
      Coalescer coalescer,
      WorkflowSignals signals,
      SlurmMirror mirror,
      WatcherMetrics metrics,
      Duration interval,
      Duration fullResync,
      Clock clock) {
    this(
        slurm,
        pods,
        coalescer,
        signals,
        mirror,
        metrics,
        interval,
        fullResync,
        clock,
        OrphanJobs.DEFAULT_MIN_AGE);
  }

  /**
   * @param orphanMinAge how long a placeholder job must be without owner (over at least two polls)
   *     before it is cancelled
   */
  public SlurmPoller(
      SlurmClient slurm,
      PodWatcher pods,
      Coalescer coalescer,
      WorkflowSignals signals,
      SlurmMirror mirror,
      WatcherMetrics metrics,
      Duration interval,
      Duration fullResync,
      Clock clock,
      Duration orphanMinAge) {
    this.metrics = metrics;
    this.interval = interval;
    this.fullResync = fullResync;
    this.clock = clock;
    this.nodes = new SlurmNodeTracker(slurm, pods, coalescer, signals, mirror, metrics, clock);
    this.jobs = new SlurmJobTracker(slurm, coalescer, signals, metrics, orphanMinAge);
  }

  /**
   * Where placeholder jobs are signalled (the scheduling pod watcher). Until set, job changes go
   * nowhere and no job is taken for an orphan.
   */
  public void routeJobs(JobRoutes routes) {
    jobs.routes(routes);
  }

  /**
   * Where job listings (for the autoscaled NodeSets' demand) and node listings (for their nodes'
   * CPUs) go; until set, nowhere.
   */
  void feedDemand(DemandFeed d) {
    nodes.demand(d);
    jobs.demand(d);
  }

  /**
   * How often jobs are listed while a pod waits for Slurm; zero or not shorter than the interval:
   * no faster listing.
   */
  public SlurmPoller pendingInterval(Duration d) {
    this.pendingInterval = d;
    return this;
  }

  /** Told the outcome of every poll (the cluster health reporter). */
  public void onReachability(ReachabilityListener l) {
    this.reachability = l;
  }

  public void start() {
    Thread t = new Thread(this::loop, "tandem-slurm-poller");
    t.setDaemon(true);
    t.setUncaughtExceptionHandler(
        (th, e) -> {
          died = e;
          log.error("the Slurm poller thread died; /healthz reports it", e);
        });
    thread = t;
    t.start();
  }

  /** Null while the poller thread runs (or was closed); otherwise why it is dead. */
  public String problem() {
    Thread t = thread;
    // TERMINATED, not !isAlive(): a thread being started (NEW) is not dead (a health check that
    // ran between the assignment and start() reported a new term's poller as dead).
    if (closed || t == null || t.getState() != Thread.State.TERMINATED) {
      return null;
    }
    return "the Slurm poller thread died" + (died == null ? "" : ": " + died);
  }

  private void loop() {
    while (!closed) {
      step();
      try {
        Thread.sleep(nextDelay().toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** The pending interval while pods wait and Slurm answers, else the interval. */
  Duration nextDelay() {
    Duration p = pendingInterval;
    if (p.isZero() || p.compareTo(interval) >= 0 || downSince != null) {
      return interval;
    }
    return jobs.podsWaiting() ? p : interval;
  }

  /** One poll of nodes and jobs; failures are reported, never thrown. For tests and benchmarks. */
  public void pollOnceSafely() {
    poll(true);
  }

  /** One turn of the poller's loop: jobs, and nodes when the interval has passed since the last. */
  void step() {
    // Within a few ms of the interval counts as due: the sleep before this poll was that long.
    Duration since = Duration.between(lastNodes, clock.instant());
    poll(since.plusMillis(20).compareTo(interval) >= 0);
  }

  private void poll(boolean withNodes) {
    long t0 = System.nanoTime();
    try {
      pollOnce(withNodes);
      metrics.slurmPoll(Duration.ofNanos(System.nanoTime() - t0), "ok");
      if (downSince != null) {
        log.info(
            "slurmrestd answers again after {}s",
            Duration.between(downSince, clock.instant()).toSeconds());
        downSince = null;
      }
      metrics.slurmUp(true);
      reachability.observed(ClusterHealth.SLURM, true, "slurmrestd answers");
    } catch (RuntimeException e) { // SlurmException and anything unexpected: never kill the poller
      metrics.slurmPoll(Duration.ofNanos(System.nanoTime() - t0), "error");
      metrics.error("slurm-poll");
      metrics.slurmUp(false);
      if (downSince == null) {
        downSince = clock.instant();
        log.warn("cannot poll slurmrestd (will try again every {}): {}", interval, e.getMessage());
      }
      lastFull = Instant.EPOCH; // the poll that answers lists everything: changes were missed
      reachability.observed(ClusterHealth.SLURM, false, problem(e));
    }
  }

  /**
   * What the NodeSets' SlurmReachable condition says: a refused token is not an outage, and the
   * operator's fix differs (the token, not slurmrestd).
   */
  static String problem(RuntimeException e) {
    if (e instanceof SlurmUnauthorizedException) {
      return "slurmrestd answers but refuses Tandem's credentials (check the token): "
          + e.getMessage();
    }
    return "cannot reach slurmrestd: " + e.getMessage();
  }

  private void pollOnce(boolean withNodes) {
    Instant now = clock.instant();
    boolean full = Duration.between(lastFull, now).compareTo(fullResync) >= 0;
    if (withNodes || full) {
      nodes.poll(full, now);
      lastNodes = now;
    }
    jobs.poll(full, now);
    if (full) {
      lastFull = now;
    }
  }

  /** Also sends the remediation triggers and rechecks the Slurm nodes call for. */
  void remediation(RemediationWatch r) {
    nodes.remediation(r);
  }

  /** A pod appeared or changed: bring its mirror up to date with what Slurm last said. */
  public void podChanged(Pod pod) {
    nodes.podChanged(pod);
  }

  /** The last view of a Slurm node, if any. */
  public SlurmNodeView lastView(String node) {
    return nodes.lastView(node);
  }

  @Override
  public void close() {
    closed = true;
    nodes.close();
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }
}
