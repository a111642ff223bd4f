package dev.tandem.watchers;

import dev.tandem.k8s.KubeClients;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;

/**
 * One worker replica's watchers against an API server: its own client (User-Agent {@code
 * tandem-replica-<id>}, so faults can target it), signals, metrics and Slurm; its leader Lease in
 * the configuration's namespace. Short lease timings: lease 6 s, renew deadline 3 s, retry 0.5 s.
 */
final class Replica implements AutoCloseable {
  static final Duration LEASE = Duration.ofSeconds(6);
  static final Duration RENEW_DEADLINE = Duration.ofSeconds(3);
  static final Duration RETRY = Duration.ofMillis(500);

  final String id;
  final KubernetesClient client;
  final RecordingSignals signals = new RecordingSignals();
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final WatcherMetrics metrics = new WatcherMetrics(registry);
  final FakeSlurmClient slurm;
  final Watchers watchers;

  /** {@code api}: where and as whom to call, and the namespace of the leader Lease. */
  Replica(Config api, String id) {
    this(api, id, new FakeSlurmClient());
  }

  Replica(Config api, String id, FakeSlurmClient slurm) {
    this.id = id;
    this.slurm = slurm;
    Config c =
        // As the worker's (TandemModule): HTTP/1.1 and one retry only, where fabric8 would retry
        // a 5xx ten times and hide an outage from the test.
        new ConfigBuilder(api)
            .withHttp2Disable(true)
            .withRequestRetryBackoffLimit(1)
            .withRequestTimeout(10_000)
            // The worker's User-Agent plus the replica, which LeadershipIT's faults pick.
            .withUserAgent(KubeClients.USER_AGENT + " tandem-replica-" + id)
            .build();
    client = new KubernetesClientBuilder().withConfig(c).build();
    watchers =
        new Watchers(
                client,
                slurm,
                signals,
                metrics,
                new Watchers.Config(
                    Duration.ofMinutes(1),
                    Duration.ofMillis(500),
                    Duration.ofMillis(250),
                    Duration.ofMinutes(1),
                    Set.of(),
                    2,
                    new Watchers.Lease(
                        api.getNamespace(),
                        "tandem-watchers",
                        "replica-" + id,
                        LEASE,
                        RENEW_DEADLINE,
                        RETRY),
                    new Watchers.Reachability(Duration.ofSeconds(1), Duration.ofMinutes(1)),
                    0),
                Clock.systemUTC())
            .supervision(Duration.ofMillis(500), Duration.ofSeconds(3));
  }

  /** Leads and its watchers run (the pod cache is synced). */
  boolean watching() {
    PodWatcher pods = watchers.pods();
    return watchers.leading() && pods != null && pods.synced() && pods.running();
  }

  double counter(String name, String tag, String value) {
    var c = registry.find(name).tag(tag, value).counter();
    return c == null ? 0 : c.count();
  }

  double leaderGauge() {
    return registry.get("tandem.watchers.leader").gauge().value();
  }

  @Override
  public void close() {
    watchers.close();
    client.close();
  }
}
