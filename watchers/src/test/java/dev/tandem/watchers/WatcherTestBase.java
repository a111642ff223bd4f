package dev.tandem.watchers;

import dev.tandem.slurm.SlurmClient;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;

/**
 * What the watcher tests wire alike, as {@link Watching} does but observable: signals are recorded
 * instead of sent to Temporal, metrics stay in memory, and the coalescer retries from 20 ms, so a
 * signal Temporal refuses is given up within about 0.3 s. Watchers made here resync every {@link
 * #RESYNC} (never during a test) unless a test asks for another interval. The coalescer is closed
 * after each test, after the test's own clean-up.
 */
abstract class WatcherTestBase {
  static final Duration RESYNC = Duration.ofMinutes(10);

  final RecordingSignals signals = new RecordingSignals();
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final WatcherMetrics metrics = new WatcherMetrics(registry);
  Coalescer coalescer = new Coalescer(2, Duration.ofMillis(20), metrics);

  @AfterEach
  void closeCoalescer() {
    coalescer.close();
  }

  /** Replaces the coalescer by one whose retries start after {@code firstRetry}. */
  void coalescerRetryingFrom(Duration firstRetry) {
    coalescer.close();
    coalescer = new Coalescer(2, firstRetry, metrics);
  }

  PodWatcher podWatcher(KubernetesClient client) {
    return new PodWatcher(client, coalescer, signals, metrics, RESYNC);
  }

  K8sNodeWatcher nodeWatcher(
      KubernetesClient client, PodWatcher pods, Set<String> unhealthy, Duration resync) {
    return new K8sNodeWatcher(
        client, pods, coalescer, signals, metrics, unhealthy, resync, ref -> null, 0, name -> null);
  }

  NodeSetWatcher nodeSetWatcher(KubernetesClient client) {
    return new NodeSetWatcher(client, coalescer, signals, metrics, RESYNC);
  }

  /** A poller whose Slurm mirror on the pods shares its clock. */
  SlurmPoller slurmPoller(
      KubernetesClient client,
      SlurmClient slurm,
      PodWatcher pods,
      Duration interval,
      Duration fullResync,
      Clock clock) {
    return new SlurmPoller(
        slurm,
        pods,
        coalescer,
        signals,
        new SlurmMirror(client, clock),
        metrics,
        interval,
        fullResync,
        clock);
  }

  /** Signals the coalescer gave up after every retry. */
  double dropped() {
    return registry.get("tandem.watcher.errors").tag("source", "signal-dropped").counter().count();
  }
}
