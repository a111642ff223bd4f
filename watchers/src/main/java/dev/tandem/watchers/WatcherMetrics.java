package dev.tandem.watchers;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The watchers' {@code tandem_*} metrics. Names follow Prometheus conventions once Micrometer's
 * registry renders them ({@code tandem.watcher.events} becomes {@code
 * tandem_watcher_events_total}).
 */
public final class WatcherMetrics implements Coalescer.Listener {
  private final MeterRegistry registry;
  private final AtomicInteger slurmUp = new AtomicInteger(1);
  private final AtomicInteger leader = new AtomicInteger(0);
  private final AtomicInteger kubernetesUp = new AtomicInteger(1);
  private final SlurmQueue queue;
  private final java.util.concurrent.atomic.AtomicReference<DrainAges> drains =
      new java.util.concurrent.atomic.AtomicReference<>();

  private void gauge(String name, String help, AtomicInteger value) {
    Gauge.builder(name, value, AtomicInteger::get).description(help).register(registry);
  }

  /** One topology pass of the leader, by outcome (docs/topology.md). */
  void topologyPublished(String outcome) {
    Counter.builder("tandem.topology.publish")
        .description("Topology passes of the leader, by outcome")
        .tag("outcome", outcome)
        .register(registry)
        .increment();
  }

  public WatcherMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.queue = new SlurmQueue(registry);
    gauge("tandem.slurm.up", "1 when the last slurmrestd poll succeeded (on the leader)", slurmUp);
    gauge("tandem.watchers.leader", "1 on the replica that watches", leader);
    gauge(
        "tandem.kubernetes.up",
        "1 when this replica's last Kubernetes probe succeeded (every replica; 0 also when refused)",
        kubernetesUp);
    // Read at scrape time from the current leader term's poller; 0 on a replica that does not lead.
    Gauge.builder("tandem.slurm.draining.nodes", drains, r -> r.get() == null ? 0 : r.get().count())
        .description("Tandem's Slurm nodes draining with jobs still running (on the leader)")
        .register(registry);
    Gauge.builder(
            "tandem.slurm.drain.oldest.seconds",
            drains,
            r -> r.get() == null ? 0 : r.get().oldestSeconds())
        .description(
            "How long the longest-draining of those nodes has been draining (on the leader)")
        .register(registry);
    // Counters a dashboard or alert rates over exist from the start at 0, so `increase(...)` sees
    // the first error instead of a series appearing out of nowhere (Prometheus' advice).
    for (String source : ERROR_SOURCES) {
      errors(source);
    }
    coalescedCounter();
    acquiredCounter();
    for (String reason : LOSS_REASONS) {
      lostCounter(reason);
    }
    for (String outcome : List.of("error", "stalled")) {
      restartCounter(outcome);
    }
    for (String reason : ORPHAN_REASONS) {
      orphanCounter(reason);
    }
  }

  /** Why a leader stopped leading ({@link #leadershipLost}). */
  static final List<String> LOSS_REASONS = List.of("lost", "taken", "error", "shutdown");

  /** Every {@code source} of {@link #error}. */
  static final List<String> ERROR_SOURCES =
      List.of("slurm-poll", "informer-restart", "signal-retry", "signal-dropped", "orphan-cancel");

  /** Why an orphaned placeholder job was cancelled ({@link #orphanJobCancelled}). */
  static final List<String> ORPHAN_REASONS = List.of("no-owner", "owner-not-running");

  public MeterRegistry registry() {
    return registry;
  }

  /** An informer or poller event: {@code source} pod/node/nodeset/slurm, {@code type} add/... */
  public void event(String source, String type) {
    Counter.builder("tandem.watcher.events")
        .description("Changes seen by the watchers")
        .tag("source", source)
        .tag("type", type)
        .register(registry)
        .increment();
  }

  /** A signal sent ({@code outcome} sent, not-running, error). */
  public void signal(String signal, String outcome) {
    Counter.builder("tandem.signals")
        .description("Signals sent to workflows by the watchers")
        .tag("signal", signal)
        .tag("outcome", outcome)
        .register(registry)
        .increment();
  }

  /** Time from seeing a change to the signal being accepted by Temporal. */
  public void lag(String source, Duration d) {
    Timer.builder("tandem.watcher.lag")
        .description("From a change seen to its signal accepted")
        .tag("source", source)
        .publishPercentiles(0.5, 0.99)
        .register(registry)
        .record(d);
  }

  public void slurmPoll(Duration d, String outcome) {
    Timer.builder("tandem.slurm.poll")
        .description("slurmrestd poll round trips")
        .tag("outcome", outcome)
        .register(registry)
        .record(d);
  }

  /**
   * The drain ages the gauges show: a new poller takes over ({@code old} null), a closing one lets
   * go of its own only (a new term's poller may already have taken over).
   */
  void drains(DrainAges old, DrainAges d) {
    if (old == null) {
      drains.set(d);
    } else {
      drains.compareAndSet(old, d);
    }
  }

  /** Slurm's queue and nodes per partition, fed by the leader's poller. */
  SlurmQueue queue() {
    return queue;
  }

  public void slurmUp(boolean up) {
    slurmUp.set(up ? 1 : 0);
  }

  public void leader(boolean isLeader) {
    leader.set(isLeader ? 1 : 0);
  }

  public void kubernetesUp(boolean up) {
    kubernetesUp.set(up ? 1 : 0);
  }

  /** This replica acquired the watchers' lease. */
  public void leadershipAcquired() {
    acquiredCounter().increment();
  }

  /**
   * This replica stopped leading: {@code lost} (not renewed within the deadline), {@code taken}
   * (another replica holds the lease), {@code error} (the election failed), {@code shutdown}.
   */
  public void leadershipLost(String reason) {
    lostCounter(reason).increment();
  }

  /** An election round ended without leading: {@code error} or {@code stalled}. */
  public void electionRestart(String outcome) {
    restartCounter(outcome).increment();
  }

  private Counter acquiredCounter() {
    return Counter.builder("tandem.watchers.leadership.acquired")
        .description("Times this replica acquired the watchers' lease")
        .register(registry);
  }

  private Counter lostCounter(String reason) {
    return Counter.builder("tandem.watchers.leadership.lost")
        .description("Times this replica stopped leading, by reason")
        .tag("reason", reason)
        .register(registry);
  }

  private Counter restartCounter(String outcome) {
    return Counter.builder("tandem.watchers.election.restarts")
        .description("Leader election rounds restarted without having led, by outcome")
        .tag("outcome", outcome)
        .register(registry);
  }

  /** A placeholder job no workflow owns was cancelled; {@code reason} one of ORPHAN_REASONS. */
  public void orphanJobCancelled(String reason) {
    orphanCounter(reason).increment();
  }

  private Counter orphanCounter(String reason) {
    return Counter.builder("tandem.orphan.jobs.cancelled")
        .description("Placeholder jobs cancelled because no workflow will ever own them")
        .tag("reason", reason)
        .register(registry);
  }

  public void error(String source) {
    errors(source).increment();
  }

  private Counter errors(String source) {
    return Counter.builder("tandem.watcher.errors")
        .description("Errors in watchers (watch failures, API errors, poll failures)")
        .tag("source", source)
        .register(registry);
  }

  @Override
  public void coalesced(String key) {
    coalescedCounter().increment();
  }

  private Counter coalescedCounter() {
    return Counter.builder("tandem.watcher.coalesced")
        .description("Work replaced by newer work for the same object before it ran")
        .register(registry);
  }

  @Override
  public void failed(String key, Exception e, boolean willRetry) {
    error(willRetry ? "signal-retry" : "signal-dropped");
  }
}
