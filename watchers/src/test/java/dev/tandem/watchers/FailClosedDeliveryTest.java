package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.NodeCommand;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A cordon made while Temporal cannot be reached (longer than the coalescer's retries) is still
 * delivered once Temporal is back: memory that suppresses a re-send holds only delivered state.
 */
@ExtendWith(KubeNamespace.class)
class FailClosedDeliveryTest extends WatcherTestBase {
  static KubernetesClient client;

  private PodWatcher pods;
  private K8sNodeWatcher nodes;

  @AfterEach
  void stop() {
    if (nodes != null) {
      nodes.close();
    }
    pods.close();
  }

  /** Node k1 with pod gpu-0 on it, cached, and the node watcher's first pass delivered. */
  private void startNodeWatcher(Duration resync, Duration redeliver) {
    pods = podWatcher(client);
    client.nodes().resource(K8sObjects.node("k1")).create();
    client.pods().resource(K8sObjects.slurmdPod("gpu-0", "k1").build()).create();
    pods.start();
    Wait.until("pod cached", () -> pods.podsOn("k1").size() == 1);
    nodes = nodeWatcher(client, pods, Set.of("GpuUnhealthy"), resync).redeliverAfter(redeliver);
    pods.onPodChanged(nodes::podChanged);
    nodes.start();
    // The first pass: the cordon owner's undrain, delivered (the unhealthy drain is the budget's).
    Wait.until("first pass", () -> signals.named("undrain").size() == 1);
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
    Wait.until("the drain given up after every retry", () -> dropped() > before);
    Thread.sleep(300); // still down a while after giving up
    assertTrue(signals.named("drain").isEmpty());
    signals.fail = false;
  }

  private void assertDrainDelivered() {
    NodeCommand c = (NodeCommand) signals.named("drain").get(0).payload();
    assertEquals("k8s-cordon", c.owner());
    assertEquals("RMA 7", c.reason());
    assertEquals(
        "node/" + client.getNamespace() + "/gpu-0", signals.named("drain").get(0).target());
  }

  /** The informer's periodic resync sends it (the redelivery timer is out of the way here). */
  @Test
  void aDrainGivenUpIsDeliveredByTheNextResync() throws Exception {
    startNodeWatcher(Duration.ofSeconds(2), Duration.ofHours(1));
    cordonWhileTemporalIsDown();
    Wait.until("the drain delivered by a resync", () -> !signals.named("drain").isEmpty());
    assertDrainDelivered();
  }

  /** With a long resync, the pod is looked at again soon after the signal was given up. */
  @Test
  void aDrainGivenUpIsRetriedUntilItLandsWithoutWaitingForTheResync() throws Exception {
    startNodeWatcher(Duration.ofMinutes(10), Duration.ofMillis(500));
    cordonWhileTemporalIsDown();
    Wait.until("the drain redelivered", () -> !signals.named("drain").isEmpty());
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
    assertTrue(signals.named("drain").isEmpty(), signals.named("drain").toString());
  }

  /** Uncordoned while the drain was still being retried: the undrain replaces it and lands. */
  @Test
  void anUncordonWhileTheDrainIsRetriedReplacesIt() throws Exception {
    coalescerRetryingFrom(Duration.ofSeconds(1)); // retries over ~15 s
    startNodeWatcher(Duration.ofMinutes(10), Duration.ofHours(1));
    signals.fail = true;
    double retries =
        registry.get("tandem.watcher.errors").tag("source", "signal-retry").counter().count();
    double coalesced = registry.get("tandem.watcher.coalesced").counter().count();
    client
        .nodes()
        .withName("k1")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":true}}");
    Wait.until(
        "the drain failing",
        () ->
            registry.get("tandem.watcher.errors").tag("source", "signal-retry").counter().count()
                > retries);
    uncordon();
    Wait.until(
        "the undrain replacing the waiting drain",
        () -> registry.get("tandem.watcher.coalesced").counter().count() > coalesced);
    signals.fail = false;
    // The first pass's undrain, then this one.
    Wait.until("the undrain of the cordon", () -> cordonOwner().size() == 2);
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
}
