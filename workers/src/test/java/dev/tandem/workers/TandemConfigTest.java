package dev.tandem.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The watchers' lease and reachability settings. */
class TandemConfigTest {
  private static TandemConfig.Watching watching(Map<String, String> env) {
    return TandemConfig.from(new Env(env)).watching();
  }

  @Test
  void leaseAndReachabilityDefaults() {
    TandemConfig.Watching w = watching(Map.of());
    assertEquals(Duration.ofSeconds(15), w.leaseDuration());
    assertEquals(Duration.ofSeconds(10), w.leaseRenewDeadline());
    assertEquals(Duration.ofSeconds(2), w.leaseRetryPeriod());
    assertEquals(Duration.ofSeconds(5), w.kubernetesProbe());
    assertEquals(Duration.ofSeconds(60), w.healthResend());
  }

  @Test
  void pendingPollDefaultsTo250msCanBeTurnedOffAndRefusesAHammer() {
    assertEquals(Duration.ofMillis(250), watching(Map.of()).slurmPendingInterval());
    assertEquals(
        Duration.ZERO, watching(Map.of("TANDEM_SLURM_PENDING_POLL", "0s")).slurmPendingInterval());
    assertEquals(
        Duration.ofMillis(100),
        watching(Map.of("TANDEM_SLURM_PENDING_POLL", "100ms")).slurmPendingInterval());
    ConfigException e =
        assertThrows(
            ConfigException.class, () -> watching(Map.of("TANDEM_SLURM_PENDING_POLL", "10ms")));
    assertEquals(
        "TANDEM_SLURM_PENDING_POLL=10ms is too short: 0s (off) or at least 50ms", e.getMessage());
  }

  @Test
  void restBoundDefaultsToTwelveHoursAndNeverBelowOneResync() {
    assertEquals(43_200, TandemConfig.from(new Env(Map.of())).tuning().restMaxSeconds());
    assertEquals(
        43_200,
        TandemConfig.from(new Env(Map.of("TANDEM_NODE_RESYNC", "30s"))).tuning().restMaxSeconds());
    assertEquals(
        86_400,
        TandemConfig.from(new Env(Map.of("TANDEM_NODE_RESYNC", "24h"))).tuning().restMaxSeconds());
    assertEquals(
        300,
        TandemConfig.from(new Env(Map.of("TANDEM_NODE_REST_MAX", "5m"))).tuning().restMaxSeconds());
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> TandemConfig.from(new Env(Map.of("TANDEM_NODE_REST_MAX", "1m"))));
    assertEquals(true, e.getMessage().startsWith("TANDEM_NODE_REST_MAX"), e.getMessage());
  }

  @Test
  void shortLeaseTimingsAreAccepted() {
    TandemConfig.Watching w =
        watching(
            Map.of(
                "TANDEM_LEASE_DURATION", "4s",
                "TANDEM_LEASE_RENEW_DEADLINE", "3s",
                "TANDEM_LEASE_RETRY_PERIOD", "500ms",
                "TANDEM_KUBERNETES_PROBE_INTERVAL", "1s",
                "TANDEM_CLUSTER_HEALTH_RESEND", "10s"));
    assertEquals(Duration.ofSeconds(4), w.leaseDuration());
    assertEquals(Duration.ofMillis(500), w.leaseRetryPeriod());
    assertEquals(Duration.ofSeconds(10), w.healthResend());
  }

  @Test
  void leaseTimingsThatDoNotNestAreRefusedByName() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                watching(
                    Map.of("TANDEM_LEASE_DURATION", "10s", "TANDEM_LEASE_RENEW_DEADLINE", "10s")));
    assertEquals(
        "TANDEM_LEASE_DURATION (10000ms) must be longer than TANDEM_LEASE_RENEW_DEADLINE (10000ms)",
        e.getMessage());
    e =
        assertThrows(
            ConfigException.class,
            () ->
                watching(
                    Map.of(
                        "TANDEM_LEASE_RENEW_DEADLINE", "4s", "TANDEM_LEASE_RETRY_PERIOD", "2s")));
    assertEquals(
        "TANDEM_LEASE_RENEW_DEADLINE (4000ms) must be longer than 2.2 times"
            + " TANDEM_LEASE_RETRY_PERIOD (2000ms)",
        e.getMessage());
  }

  @Test
  void topologyIsOffByDefaultAndReadFromTandemTopology() {
    assertEquals(dev.tandem.topology.TopologySpec.OFF, watching(Map.of()).topology());
    TandemConfig.Watching w =
        watching(
            Map.of(
                "TANDEM_TOPOLOGY",
                "tree:topology.tandem.dev/spine,topology.tandem.dev/leaf",
                "POD_NAMESPACE",
                "hpc"));
    assertEquals(
        "tree:topology.tandem.dev/spine,topology.tandem.dev/leaf", w.topology().toString());
    assertEquals("hpc", w.topologyNamespace());
  }
}
