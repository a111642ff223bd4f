package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.api.ApiFaults;
import dev.tandem.devstack.api.LocalApiServer;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.workflows.model.ClusterHealth;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes probe against the local API with injected faults: an API answering 503, or not
 * answering in time, shows on every NodeSet as {@code kubernetes} unreachable within a probe
 * interval, and {@code tandem_kubernetes_up} follows.
 */
class KubernetesReachabilityTest {
  private static final Duration PROBE = Duration.ofMillis(500);

  private final RecordingSignals signals = new RecordingSignals();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final WatcherMetrics metrics = new WatcherMetrics(registry);
  private LocalApiServer api;
  private KubernetesClient client;
  private Coalescer coalescer;
  private NodeSetWatcher nodeSets;
  private ClusterHealthReporter reporter;

  @BeforeEach
  void start() throws Exception {
    api = LocalApiServer.start(0);
    api.installCrd("META-INF/fabric8/nodesets.tandem.dev-v1.yml");
    client = client(api);
    NodeSetResources.generic(client)
        .resource(
            Serialization.unmarshal(
                "apiVersion: tandem.dev/v1alpha1\nkind: NodeSet\nmetadata:\n  name: a\n"
                    + "  namespace: default\nspec:\n  replicas: 1\n  template:\n    spec:\n"
                    + "      containers:\n      - name: slurmd\n        image: slurmd\n",
                GenericKubernetesResource.class))
        .create();
    coalescer = new Coalescer(2, Duration.ofMillis(20), metrics);
    nodeSets = new NodeSetWatcher(client, coalescer, signals, metrics, Duration.ofMinutes(10));
    nodeSets.start();
    Wait.until("NodeSet cached", () -> nodeSets.known().size() == 1);
    reporter =
        new ClusterHealthReporter(
            nodeSets::known,
            coalescer,
            signals,
            metrics,
            Clock.systemUTC(),
            new KubernetesProbe(client, PROBE),
            PROBE,
            Duration.ofHours(1));
    reporter.start();
  }

  /** As the worker configures its client: one retry only (fabric8 retries 5xx ten times). */
  static KubernetesClient client(LocalApiServer api) {
    Config c =
        new ConfigBuilder(Config.empty())
            .withMasterUrl(api.url())
            .withNamespace("default")
            .withHttp2Disable(true)
            .withRequestRetryBackoffLimit(1)
            .build();
    return new KubernetesClientBuilder().withConfig(c).build();
  }

  @AfterEach
  void stop() {
    reporter.close();
    nodeSets.close();
    coalescer.close();
    client.close();
    api.close();
  }

  private ClusterHealth last() {
    List<RecordingSignals.Sent> got =
        signals.matching(
            s ->
                s.target().equals("nodeset/default/a")
                    && s.payload() instanceof ClusterHealth h
                    && h.component().equals(ClusterHealth.KUBERNETES));
    return got.isEmpty() ? null : (ClusterHealth) got.get(got.size() - 1).payload();
  }

  private double up() {
    return registry.get("tandem.kubernetes.up").gauge().value();
  }

  @Test
  void anApiAnswering503IsReportedUnreachableAndRecoveryReachable() {
    Wait.until("reachable", () -> last() != null && last().reachable());
    assertEquals(1.0, up());
    api.faults().failAll(503, Duration.ofMinutes(1));
    long t0 = System.nanoTime();
    Wait.until("unreachable", () -> last() != null && !last().reachable());
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    assertTrue(took.compareTo(PROBE.plus(Duration.ofSeconds(5))) < 0, "took " + took);
    assertTrue(last().message().contains("503"), last().message());
    assertEquals(0.0, up());
    api.faults().clear();
    Wait.until("reachable again", () -> last().reachable());
    assertEquals(1.0, up());
  }

  @Test
  void anApiThatDoesNotAnswerInTimeIsUnreachable() {
    Wait.until("reachable", () -> last() != null && last().reachable());
    api.faults()
        .delayMatching(
            ApiFaults.resource("nodesets"), Duration.ofSeconds(3), Duration.ofMinutes(1));
    Wait.until("unreachable", () -> !last().reachable());
    assertTrue(last().message().contains("did not answer"), last().message());
    api.faults().clear();
    Wait.until("reachable again", () -> last().reachable());
  }
}
