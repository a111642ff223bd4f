package dev.tandem.watchers;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
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

  public WatcherMetrics(MeterRegistry registry) {
    this.registry = registry;
    registry.gauge("tandem.slurm.up", slurmUp);
    registry.gauge("tandem.watchers.leader", leader);
    // Counters a dashboard or alert rates over exist from the start at 0, so `increase(...)` sees
    // the first error instead of a series appearing out of nowhere (Prometheus' advice).
    for (String source : ERROR_SOURCES) {
      errors(source);
    }
    coalescedCounter();
  }

  /** Every {@code source} of {@link #error}. */
  static final java.util.List<String> ERROR_SOURCES =
      java.util.List.of("slurm-poll", "informer-restart", "signal-retry", "signal-dropped");

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

  public void slurmUp(boolean up) {
    slurmUp.set(up ? 1 : 0);
  }

  public void leader(boolean isLeader) {
    leader.set(isLeader ? 1 : 0);
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
