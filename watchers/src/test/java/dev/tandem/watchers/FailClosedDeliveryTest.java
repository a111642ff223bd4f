package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tandem.workflows.model.NodeCommand;
import io.fabric8.kubernetes.api.model.NodeBuilder;
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
import org.junit.jupiter.api.Test;

/**
 * A cordon made while Temporal cannot be reached (longer than the coalescer's retries) is still
 * delivered once Temporal is back: memory that suppresses a re-send holds only delivered state.
 */
@EnableKubernetesMockClient(crud = true)
class FailClosedDeliveryTest {
  static KubernetesClient client;

  private final RecordingSignals signals = new RecordingSignals();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final WatcherMetrics metrics = new WatcherMetrics(registry);
  private Coalescer coalescer;
  private PodWatcher pods;
  private K8sNodeWatcher nodes;

  /** Pods and nodes as every test needs them; the coalescer retries from {@code firstRetry}. */
  private void startWith(Duration firstRetry) {
    coalescer = new Coalescer(2, firstRetry, metrics);
    pods = new PodWatcher(client, coalescer, signals, metrics, Duration.ofMinutes(10));
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("k1").endMetadata().build())
        .create();
    client
        .pods()
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("gpu-0")
                .withNamespace("default")
                .addToLabels("tandem.dev/nodeset", "gpu")
                .endMetadata()
                .withNewSpec()
                .withNodeName("k1")
                .addNewContainer()
                .withName("slurmd")
                .withImage("slurmd")
                .endContainer()
                .endSpec()
                .build())
        .create();
    pods.start();
    await("pod cached", () -> pods.podsOn("k1").size() == 1);
  }

  @AfterEach
  void stop() {
    if (nodes != null) {
      nodes.close();
    }
    pods.close();
    coalescer.close();
    client.pods().inAnyNamespace().delete();
    client.nodes().delete();
  }

  private void startNodeWatcher(Duration resync, Duration redeliver) {
    if (coalescer == null) {
      startWith(Duration.ofMillis(20)); // 5 attempts within ~0.3 s
    }
    nodes =
        new K8sNodeWatcher(
                client, pods, coalescer, signals, metrics, Set.of("GpuUnhealthy"), resync)
            .redeliverAfter(redeliver);
    pods.onPodChanged(nodes::podChanged);
    nodes.start();
    // The first pass: both owners' undrains, delivered.
    await("first pass", () -> sent("undrain").size() == 2);
  }

  private List<RecordingSignals.Sent> sent(String signal) {
    return signals.matching(s -> s.signal().equals(signal));
  }

  private double dropped() {
    return registry.get("tandem.watcher.errors").tag("source", "signal-dropped").counter().count();
  }

  private void cordonWhileTemporalIsDown() throws InterruptedException {
    signals.fail = true;
    double before = dropped();
    client
        .nodes()
        .withName("k1")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\"tandem.dev/cordon-reason\":\"RMA 7\"}},"
                + "\"spec\":{\"unschedulable\":true}}");
    await("the drain given up after every retry", () -> dropped() > before);
    Thread.sleep(300); // still down a while after giving up
    assertTrue(sent("drain").isEmpty());
    signals.fail = false;
  }

  private void assertDrainDelivered() {
    NodeCommand c = (NodeCommand) sent("drain").get(0).payload();
    assertEquals("k8s-cordon", c.owner());
    assertEquals("RMA 7", c.reason());
    assertEquals("node/default/gpu-0", sent("drain").get(0).target());
  }

  /** The informer's periodic resync sends it (the redelivery timer is out of the way here). */
  @Test
  void aDrainGivenUpIsDeliveredByTheNextResync() throws Exception {
    startNodeWatcher(Duration.ofSeconds(2), Duration.ofHours(1));
    cordonWhileTemporalIsDown();
    await(
        "the drain delivered by a resync", () -> !sent("drain").isEmpty(), Duration.ofSeconds(15));
    assertDrainDelivered();
  }

  /** With a long resync, the pod is looked at again soon after the signal was given up. */
  @Test
  void aDrainGivenUpIsRetriedUntilItLandsWithoutWaitingForTheResync() throws Exception {
    startNodeWatcher(Duration.ofMinutes(10), Duration.ofMillis(500));
    cordonWhileTemporalIsDown();
    await("the drain redelivered", () -> !sent("drain").isEmpty(), Duration.ofSeconds(15));
    assertDrainDelivered();
  }

  /** Uncordoned after the drain was given up: the stale drain is never sent. */
  @Test
  void aDrainGivenUpIsNotSentAfterTheCordonWasLifted() throws Exception {
    startNodeWatcher(Duration.ofSeconds(1), Duration.ofMillis(300));
    cordonWhileTemporalIsDown();
    signals.fail = true;
    uncordon();
    Thread.sleep(300);
    signals.fail = false;
    Thread.sleep(3000); // resyncs and redeliveries: the view now is "not cordoned"
    assertTrue(sent("drain").isEmpty(), sent("drain").toString());
  }

  /** Uncordoned while the drain was still being retried: the undrain replaces it and lands. */
  @Test
  void anUncordonWhileTheDrainIsRetriedReplacesIt() throws Exception {
    startWith(Duration.ofSeconds(1)); // retries over ~15 s
    startNodeWatcher(Duration.ofMinutes(10), Duration.ofHours(1));
    signals.fail = true;
    double retries =
        registry.get("tandem.watcher.errors").tag("source", "signal-retry").counter().count();
    double coalesced = registry.get("tandem.watcher.coalesced").counter().count();
    client
        .nodes()
        .withName("k1")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":true}}");
    await(
        "the drain failing",
        () ->
            registry.get("tandem.watcher.errors").tag("source", "signal-retry").counter().count()
                > retries);
    uncordon();
    await(
        "the undrain replacing the waiting drain",
        () -> registry.get("tandem.watcher.coalesced").counter().count() > coalesced);
    signals.fail = false;
    await(
        "the undrain of the cordon",
        () -> cordonOwner().size() == 2, // the first pass's undrain, then this one
        Duration.ofSeconds(15));
    assertEquals(
        List.of("undrain", "undrain"), cordonOwner().stream().map(x -> x.signal()).toList());
  }

  private List<RecordingSignals.Sent> cordonOwner() {
    return signals.matching(
        s -> s.payload() instanceof NodeCommand c && c.owner().equals("k8s-cordon"));
  }

  private void uncordon() {
    client
        .nodes()
        .withName("k1")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":null}}");
  }

  private static void await(String what, BooleanSupplier c) {
    await(what, c, Duration.ofSeconds(10));
  }

  private static void await(String what, BooleanSupplier c, Duration max) {
    long end = System.nanoTime() + max.toNanos();
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
    fail("timed out after " + max + " waiting for " + what);
  }
}
