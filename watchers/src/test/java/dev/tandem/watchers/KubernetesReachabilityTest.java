package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.faults.ApiFaults;
import dev.tandem.devstack.faults.KubeApiProxy;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.workflows.model.ClusterHealth;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Kubernetes probe through a fault proxy in front of the real API server: an API answering 503,
 * or not answering in time, shows on every NodeSet as {@code kubernetes} unreachable within a probe
 * interval, and {@code tandem_kubernetes_up} follows.
 */
@ExtendWith(KubeNamespace.class)
class KubernetesReachabilityTest extends WatcherTestBase {
  private static final Duration PROBE = Duration.ofMillis(500);
  static KubernetesClient admin;

  private KubeApiProxy proxy;
  private KubernetesClient client;
  private NodeSetWatcher nodeSets;
  private ClusterHealthReporter reporter;
  private KubernetesAccess access;

  @BeforeEach
  void start() throws Exception {
    proxy = KubeNamespace.proxy();
    client = new KubernetesClientBuilder().withConfig(KubeNamespace.through(proxy, admin)).build();
    NodeSetResources.generic(client)
        .resource(
            K8sObjects.nodeSet(
                "a",
                "  replicas: 1\n  template:\n    spec:\n"
                    + "      containers:\n      - name: slurmd\n        image: slurmd\n"))
        .create();
    nodeSets = nodeSetWatcher(client);
    nodeSets.start();
    Wait.until("NodeSet cached", () -> nodeSets.known().size() == 1);
    access = new KubernetesAccess(new KubernetesProbe(client, PROBE), PROBE, metrics);
    access.start();
    reporter =
        new ClusterHealthReporter(
            nodeSets::known,
            coalescer,
            signals,
            metrics,
            Clock.systemUTC(),
            access::latest,
            PROBE,
            Duration.ofHours(1));
    reporter.start();
  }

  @AfterEach
  void stop() {
    reporter.close();
    access.close();
    nodeSets.close();
    client.close();
    proxy.close();
  }

  private ClusterHealth last() {
    return signals.lastHealth("nodeset/" + admin.getNamespace() + "/a", ClusterHealth.KUBERNETES);
  }

  private double up() {
    return registry.get("tandem.kubernetes.up").gauge().value();
  }

  @Test
  void anApiAnswering503IsReportedUnreachableAndRecoveryReachable() {
    Wait.until("reachable", () -> last() != null && last().reachable());
    assertEquals(1.0, up());
    proxy.faults().failAll(503, Duration.ofMinutes(1));
    long t0 = System.nanoTime();
    Wait.until("unreachable", () -> last() != null && !last().reachable());
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    assertTrue(took.compareTo(PROBE.plus(Duration.ofSeconds(5))) < 0, "took " + took);
    assertTrue(last().message().contains("503"), last().message());
    assertEquals(0.0, up());
    proxy.faults().clear();
    Wait.until("reachable again", () -> last().reachable());
    assertEquals(1.0, up());
  }

  @Test
  void anApiThatDoesNotAnswerInTimeIsUnreachable() {
    Wait.until("reachable", () -> last() != null && last().reachable());
    proxy
        .faults()
        .delayMatching(
            ApiFaults.resource("nodesets"), Duration.ofSeconds(3), Duration.ofMinutes(1));
    Wait.until("unreachable", () -> !last().reachable());
    assertTrue(last().message().contains("did not answer"), last().message());
    proxy.faults().clear();
    Wait.until("reachable again", () -> last().reachable());
  }
}
