package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.PodView;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Pod and Kubernetes node watchers against fabric8's mock API server (CRUD). Only behaviour a real
 * API server shares is relied on: label "exists" selection, merge patches of scalars and maps.
 */
@EnableKubernetesMockClient(crud = true)
class K8sWatchersTest {
  static KubernetesClient client;

  private final RecordingSignals signals = new RecordingSignals();
  private final WatcherMetrics metrics = new WatcherMetrics(new SimpleMeterRegistry());
  private Coalescer coalescer;
  private PodWatcher pods;
  private K8sNodeWatcher nodes;

  @BeforeEach
  void start() {
    coalescer = new Coalescer(2, Duration.ofMillis(20), metrics);
    pods = new PodWatcher(client, coalescer, signals, metrics, Duration.ofMinutes(10));
    nodes =
        new K8sNodeWatcher(
            client,
            pods,
            coalescer,
            signals,
            metrics,
            Set.of("GpuUnhealthy"),
            Duration.ofMinutes(10));
    pods.onPodChanged(nodes::podChanged);
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("k1").endMetadata().build())
        .create();
    pods.start();
    nodes.start();
    await("synced", () -> pods.synced());
  }

  @AfterEach
  void stop() {
    nodes.close();
    pods.close();
    coalescer.close();
    client.pods().inAnyNamespace().delete();
    client.nodes().delete();
  }

  private static Pod pod(String name, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .addToLabels("tandem.dev/nodeset", "gpu")
        .addToLabels("tandem.dev/revision", "r1")
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewContainer()
        .withName("slurmd")
        .withImage("slurmd")
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Pending")
        .endStatus()
        .build();
  }

  private static void await(String what, BooleanSupplier c) {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < end) {
      if (c.getAsBoolean()) {
        return;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }
    fail("timed out waiting for " + what);
  }

  private List<RecordingSignals.Sent> sent(String signal) {
    return signals.matching(s -> s.signal().equals(signal));
  }

  @Test
  void podChangesBecomePodObservedSignals() {
    client.pods().resource(pod("gpu-0", "k1")).create();
    await("add", () -> !sent("podObserved").isEmpty());
    PodView v = (PodView) sent("podObserved").get(0).payload();
    assertEquals("gpu-0", v.name());
    assertEquals("Pending", v.phase());
    assertEquals("node/default/gpu-0", sent("podObserved").get(0).target());

    client
        .pods()
        .inNamespace("default")
        .withName("gpu-0")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"phase\":\"Running\"}}");
    await(
        "running",
        () ->
            sent("podObserved").stream()
                .anyMatch(s -> "Running".equals(((PodView) s.payload()).phase())));

    client.pods().inNamespace("default").withName("gpu-0").delete();
    await(
        "deleted",
        () -> sent("podObserved").stream().anyMatch(s -> !((PodView) s.payload()).exists()));
  }

  @Test
  void podsWithoutTheNodeSetLabelAreNotWatched() throws Exception {
    Pod other = pod("web-0", "k1");
    other.getMetadata().getLabels().remove("tandem.dev/nodeset");
    client.pods().resource(other).create();
    client.pods().resource(pod("gpu-1", "k1")).create();
    await("gpu-1 seen", () -> !sent("podObserved").isEmpty());
    Thread.sleep(200);
    assertTrue(sent("podObserved").stream().noneMatch(s -> s.target().endsWith("web-0")));
  }

  @Test
  void cordonDrainsThePodsOnTheNodeAndUncordonLiftsOnlyThat() {
    client.pods().resource(pod("gpu-0", "k1")).create();
    client.pods().resource(pod("gpu-1", "k2")).create();
    await("pods cached", () -> pods.podsOn("k1").size() == 1);
    client
        .nodes()
        .withName("k1")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\"tandem.dev/cordon-reason\":\"RMA ticket 42\"}},"
                + "\"spec\":{\"unschedulable\":true}}");
    await("drain", () -> !sent("drain").isEmpty());
    RecordingSignals.Sent d = sent("drain").get(0);
    assertEquals("node/default/gpu-0", d.target());
    NodeCommand c = (NodeCommand) d.payload();
    assertEquals("k8s-cordon", c.owner());
    assertEquals("RMA ticket 42", c.reason());
    assertEquals(1, sent("drain").size(), "only the pod on the cordoned node");

    client
        .nodes()
        .withName("k1")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":null}}");
    await("undrain", () -> !sent("undrain").isEmpty());
    NodeCommand u = (NodeCommand) sent("undrain").get(0).payload();
    assertEquals("k8s-cordon", u.owner());
    assertTrue(sent("undrain").stream().allMatch(s -> s.target().equals("node/default/gpu-0")));
  }

  /** The node was uncordoned while no watcher ran: a restarted watcher lifts the cordon drain. */
  @Test
  void restartedWatcherSendsTheFullStateOnce() {
    client.pods().resource(pod("gpu-0", "k1")).create();
    await("pods cached", () -> pods.podsOn("k1").size() == 1);
    nodes.close();
    signals.clear();
    nodes = newNodeWatcher(pods, Duration.ofMinutes(10));
    nodes.start();
    await("undrains after restart", () -> sent("undrain").size() == 2);
    assertEquals(
        Set.of("k8s-cordon", "k8s-unhealthy"),
        sent("undrain").stream()
            .map(x -> ((NodeCommand) x.payload()).owner())
            .collect(java.util.stream.Collectors.toSet()));
    assertTrue(sent("undrain").stream().allMatch(x -> x.target().equals("node/default/gpu-0")));
    assertTrue(sent("drain").isEmpty());
  }

  /**
   * Found end to end: when the pod cache fills only after the node watcher's first pass, the
   * undrains of that pass are lost; the periodic resync must send them (once).
   */
  @Test
  void aPodCacheFilledLateIsRepairedByTheResync() throws Exception {
    client.pods().resource(pod("gpu-0", "k1")).create();
    await("pods cached", () -> pods.podsOn("k1").size() == 1);
    nodes.close();
    pods.close();
    signals.clear();
    PodWatcher late = new PodWatcher(client, coalescer, signals, metrics, Duration.ofMinutes(10));
    nodes = newNodeWatcher(late, Duration.ofSeconds(1));
    late.onPodChanged(nodes::podChanged);
    nodes.start(); // its full pass sees no pod
    late.start();
    pods = late;
    await("undrain from the resync", () -> sent("undrain").size() == 2);
    Thread.sleep(2500); // two more resyncs: nothing more is sent
    assertEquals(2, sent("undrain").size(), sent("undrain").toString());
  }

  private K8sNodeWatcher newNodeWatcher(PodWatcher p, Duration resync) {
    return new K8sNodeWatcher(
        client, p, coalescer, signals, metrics, Set.of("GpuUnhealthy"), resync);
  }

  @Test
  void unhealthyConditionDrainsWithConditionAndMessage() {
    client.pods().resource(pod("gpu-0", "k1")).create();
    await("pods cached", () -> pods.podsOn("k1").size() == 1);
    client
        .nodes()
        .withName("k1")
        .editStatus(
            n -> {
              n.setStatus(
                  new io.fabric8.kubernetes.api.model.NodeStatusBuilder()
                      .addNewCondition()
                      .withType("Ready")
                      .withStatus("True")
                      .endCondition()
                      .addNewCondition()
                      .withType("GpuUnhealthy")
                      .withStatus("True")
                      .withMessage("Xid 79 on GPU 3")
                      .endCondition()
                      .build());
              return n;
            });
    await("drain", () -> !sent("drain").isEmpty());
    NodeCommand c = (NodeCommand) sent("drain").get(0).payload();
    assertEquals("k8s-unhealthy", c.owner());
    assertEquals("GpuUnhealthy=True: Xid 79 on GPU 3", c.reason());
    assertFalse(c.reason().contains("Ready"));
  }

  @Test
  void aPodLandingOnACordonedNodeIsDrainedToo() {
    client
        .nodes()
        .withName("k1")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":true}}");
    await("node cordoned in cache", () -> true);
    client.pods().resource(pod("gpu-5", "k1")).create();
    await("drain", () -> sent("drain").stream().anyMatch(s -> s.target().endsWith("gpu-5")));
    assertEquals(
        "node k1 cordoned in Kubernetes", ((NodeCommand) sent("drain").get(0).payload()).reason());
  }
}
