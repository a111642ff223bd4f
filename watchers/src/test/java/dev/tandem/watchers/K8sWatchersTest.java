package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.kube.OnConflict;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.remediation.BudgetShape;
import dev.tandem.workflows.remediation.BudgetStatus;
import dev.tandem.workflows.remediation.RemediationBudget;
import dev.tandem.workflows.remediation.SlotRelease;
import dev.tandem.workflows.remediation.SlotRequest;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Pod and Kubernetes node watchers against the real API server: status only through the status
 * subresource, graceful deletes, label "exists" selection, merge patches of scalars and maps.
 */
@ExtendWith(KubeNamespace.class)
class K8sWatchersTest extends WatcherTestBase {
  static KubernetesClient client;

  private PodWatcher pods;
  private K8sNodeWatcher nodes;

  @BeforeEach
  void start() {
    pods = podWatcher(client);
    nodes = newNodeWatcher(pods, RESYNC);
    pods.onPodChanged(nodes::podChanged);
    client.nodes().resource(K8sObjects.node("k1")).create();
    pods.start();
    nodes.start();
    Wait.until("synced", () -> pods.synced());
  }

  @AfterEach
  void stop() {
    nodes.close();
    pods.close();
  }

  private static Pod pod(String name, String node) {
    return K8sObjects.slurmdPod(name, node)
        .editMetadata()
        .addToLabels("tandem.dev/revision", "r1")
        .endMetadata()
        .withNewStatus()
        .withPhase("Pending")
        .endStatus()
        .build();
  }

  @Test
  void podChangesBecomePodObservedSignals() {
    client.pods().resource(pod("gpu-0", "k1")).create();
    Wait.until("add", () -> !signals.named("podObserved").isEmpty());
    PodView v = (PodView) signals.named("podObserved").get(0).payload();
    assertEquals("gpu-0", v.name());
    assertEquals("Pending", v.phase());
    assertEquals(
        "node/" + client.getNamespace() + "/gpu-0", signals.named("podObserved").get(0).target());

    client
        .pods()
        .withName("gpu-0")
        .subresource("status") // as the kubelet: the main resource ignores status changes
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"phase\":\"Running\"}}");
    Wait.until(
        "running",
        () ->
            signals.named("podObserved").stream()
                .anyMatch(s -> "Running".equals(((PodView) s.payload()).phase())));

    // Gone for good (no kubelet here to finish a graceful delete, as on a real API server).
    client.pods().withName("gpu-0").withGracePeriod(0).delete();
    Wait.until(
        "deleted",
        () ->
            signals.named("podObserved").stream().anyMatch(s -> !((PodView) s.payload()).exists()));
  }

  @Test
  void podsWithoutTheNodeSetLabelAreNotWatched() throws Exception {
    Pod other = pod("web-0", "k1");
    other.getMetadata().getLabels().remove("tandem.dev/nodeset");
    client.pods().resource(other).create();
    client.pods().resource(pod("gpu-1", "k1")).create();
    Wait.until("gpu-1 seen", () -> !signals.named("podObserved").isEmpty());
    Thread.sleep(200);
    assertTrue(signals.named("podObserved").stream().noneMatch(s -> s.target().endsWith("web-0")));
  }

  @Test
  void cordonDrainsThePodsOnTheNodeAndUncordonLiftsOnlyThat() {
    client.nodes().resource(K8sObjects.node("k2")).create();
    client.pods().resource(pod("gpu-0", "k1")).create();
    client.pods().resource(pod("gpu-1", "k2")).create();
    Wait.until("pods cached", () -> pods.podsOn("k1").size() == 1);
    client
        .nodes()
        .withName("k1")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\"tandem.dev/cordon-reason\":\"RMA ticket 42\"}},"
                + "\"spec\":{\"unschedulable\":true}}");
    Wait.until("drain", () -> !signals.named("drain").isEmpty());
    RecordingSignals.Sent d = signals.named("drain").get(0);
    assertEquals("node/" + client.getNamespace() + "/gpu-0", d.target());
    NodeCommand c = (NodeCommand) d.payload();
    assertEquals("k8s-cordon", c.owner());
    assertEquals("RMA ticket 42", c.reason());
    assertEquals(1, signals.named("drain").size(), "only the pod on the cordoned node");

    client
        .nodes()
        .withName("k1")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":null}}");
    Wait.until("undrain", () -> !signals.named("undrain").isEmpty());
    NodeCommand u = (NodeCommand) signals.named("undrain").get(0).payload();
    assertEquals("k8s-cordon", u.owner());
    assertTrue(
        signals.named("undrain").stream()
            .allMatch(s -> s.target().equals("node/" + client.getNamespace() + "/gpu-0")));
  }

  /**
   * The pod on a cordoned node is evicted; its replacement waits Pending on no node: the cordon's
   * hold does not follow it there (it would keep the node drained after the uncordon).
   */
  @Test
  void anEvictedPodsReplacementOnNoNodeIsNotHeldByTheOldNodesCordon() throws Exception {
    client.pods().resource(pod("gpu-0", "k1")).create();
    Wait.until("pod cached", () -> pods.podsOn("k1").size() == 1);
    client
        .nodes()
        .withName("k1")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":true}}");
    Wait.until("drain", () -> !signals.named("drain").isEmpty());
    client.pods().withName("gpu-0").withGracePeriod(0).delete();
    Wait.until("gone", () -> pods.podsOn("k1").isEmpty());
    Pod pending = pod("gpu-0", "k1");
    pending.getSpec().setNodeName(null);
    client.pods().resource(pending).create();
    Wait.until("undrain", () -> !signals.named("undrain").isEmpty());
    RecordingSignals.Sent u = signals.named("undrain").get(0);
    assertEquals("node/" + client.getNamespace() + "/gpu-0", u.target());
    assertEquals("k8s-cordon", ((NodeCommand) u.payload()).owner());
    assertEquals(1, signals.named("drain").size(), "no new drain for a pod on no node");
  }

  /**
   * The node was uncordoned and turned healthy while no watcher ran: a restarted watcher lifts the
   * cordon drain, and releases the budget's drain of a node that is healthy now.
   */
  @Test
  void restartedWatcherSendsTheFullStateOnce() {
    SlotRequest stale =
        SlotRequest.drain(
            "k1",
            List.of(new NodeRef(client.getNamespace(), "gpu", "gpu-0", 0)),
            RemediationBudget.defaults(),
            new BudgetShape(null, 0),
            null,
            "GpuUnhealthy=True");
    signals.budget = new BudgetStatus(List.of(new BudgetStatus.Entry(stale, null, "")), null, null);
    restartNodeWatcherWithAPodOnK1();
    Wait.until("undrains after restart", () -> signals.named("undrain").size() == 1);
    assertEquals("k8s-cordon", ((NodeCommand) signals.named("undrain").get(0).payload()).owner());
    assertEquals(
        "node/" + client.getNamespace() + "/gpu-0", signals.named("undrain").get(0).target());
    Wait.until("stale drain released", () -> signals.named(Names.SIGNAL_RELEASE).size() == 1);
    SlotRelease r = (SlotRelease) signals.named(Names.SIGNAL_RELEASE).get(0).payload();
    assertEquals("k8s-unhealthy:k1", r.key());
    assertTrue(signals.named("drain").isEmpty());
    assertTrue(signals.named(Names.SIGNAL_ACQUIRE).isEmpty());
  }

  /**
   * The informer may hand over the adds of its first listing after the first full pass ran (the
   * handler queue is asynchronous): those adds are the same nodes, and send nothing twice; a node
   * added later is new and gets its full pass.
   */
  @Test
  void anAddOfTheFirstListingDeliveredAfterTheFirstPassSendsNothingAgain() throws Exception {
    // The informer's own adds are held back and the listing's add is handed over by the test,
    // after the first pass. Let through, the informer's add came after the test's on a loaded CI
    // machine, and counted as a second add of the same version (a new node). The add handed over
    // is the listed object itself: a fresh GET may carry a later version (the control plane's node
    // controller updates the Node), which is rightly a change.
    Thread test = Thread.currentThread();
    AtomicReference<Node> listing = new AtomicReference<>();
    restartNodeWatcherWithAPodOnK1(
        () ->
            new K8sNodeWatcher(
                client,
                pods,
                coalescer,
                signals,
                metrics,
                Set.of("GpuUnhealthy"),
                RESYNC,
                ref -> null,
                0,
                name -> null) {
              @Override
              protected void onAdd(Node n) {
                if (Thread.currentThread() == test) {
                  super.onAdd(n);
                } else if ("k1".equals(n.getMetadata().getName())) {
                  listing.compareAndSet(null, n);
                }
              }
            });
    Wait.until("first pass", () -> signals.named("undrain").size() == 1);
    Wait.until("listing's add held back", () -> listing.get() != null);
    Node listed = listing.get();
    nodes.onAdd(listed); // late delivery of the listing's add
    assertTrue(coalescer.drain(Duration.ofSeconds(5)), "sends settled");
    assertEquals(1, signals.named("undrain").size(), "nothing sent twice: " + signals.all());
    // The same name seen again with another version (deleted and added back): a new node.
    Node readded = new NodeBuilder(listed).build(); // the listed object is the cache's own
    readded.getMetadata().setResourceVersion(listed.getMetadata().getResourceVersion() + "0");
    nodes.onAdd(readded);
    Wait.until("full pass for the new node", () -> signals.named("undrain").size() == 2);
  }

  /**
   * Found end to end: when the pod cache fills only after the node watcher's first pass, the
   * undrains of that pass are lost; the periodic resync must send them (once).
   */
  @Test
  void aPodCacheFilledLateIsRepairedByTheResync() throws Exception {
    client.pods().resource(pod("gpu-0", "k1")).create();
    Wait.until("pods cached", () -> pods.podsOn("k1").size() == 1);
    nodes.close();
    pods.close();
    signals.clear();
    PodWatcher late = podWatcher(client);
    nodes = newNodeWatcher(late, Duration.ofSeconds(1));
    late.onPodChanged(nodes::podChanged);
    nodes.start(); // its full pass sees no pod
    late.start();
    pods = late;
    Wait.until("undrain from the resync", () -> signals.named("undrain").size() == 1);
    Thread.sleep(2500); // two more resyncs: nothing more is sent
    assertEquals(1, signals.named("undrain").size(), signals.named("undrain").toString());
  }

  /** A pod on k1, then the node watcher restarted with no signal recorded yet. */
  private void restartNodeWatcherWithAPodOnK1() {
    restartNodeWatcherWithAPodOnK1(() -> newNodeWatcher(pods, RESYNC));
  }

  private void restartNodeWatcherWithAPodOnK1(
      java.util.function.Supplier<K8sNodeWatcher> restarted) {
    client.pods().resource(pod("gpu-0", "k1")).create();
    Wait.until("pods cached", () -> pods.podsOn("k1").size() == 1);
    nodes.close();
    // Sends the pod's creation caused must land before the slate is cleared, or one landing after
    // counts as the restarted watcher's (seen once on a loaded CI machine).
    try {
      assertTrue(coalescer.drain(Duration.ofSeconds(5)), "sends settled before the restart");
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
    signals.clear();
    nodes = restarted.get();
    nodes.start();
  }

  private K8sNodeWatcher newNodeWatcher(PodWatcher p, Duration resync) {
    return nodeWatcher(client, p, Set.of("GpuUnhealthy"), resync);
  }

  @Test
  void unhealthyConditionDrainsWithConditionAndMessage() {
    client.nodes().resource(K8sObjects.node("k2")).create();
    client.pods().resource(pod("gpu-0", "k1")).create();
    client.pods().resource(pod("gpu-1", "k2")).create();
    Wait.until("pods cached", () -> pods.all().size() == 2);
    OnConflict.retry(
        () ->
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
                    }));
    // Asked of the budget, which drains within spec.remediation.budget; never sent directly.
    Wait.until("acquire", () -> !signals.named(Names.SIGNAL_ACQUIRE).isEmpty());
    RecordingSignals.Sent a = signals.named(Names.SIGNAL_ACQUIRE).get(0);
    assertEquals(Names.REMEDIATION_BUDGET_ID, a.target());
    SlotRequest r = (SlotRequest) a.payload();
    assertTrue(r.isDrain());
    assertEquals("k1", r.k8sNode());
    assertEquals(List.of("gpu-0"), r.nodes().stream().map(NodeRef::pod).toList());
    assertEquals(List.of(client.getNamespace() + "/gpu"), r.nodeSets());
    assertEquals(0, r.maxPerNodeSet(), "no budget written");
    assertEquals(
        Map.of(client.getNamespace() + "/gpu", 2),
        r.nodeSetNodes(),
        "gpu's slurmd pods on k1 and k2");
    assertEquals(1, r.nodeSetLimit(client.getNamespace() + "/gpu"), "one of its two nodes");
    assertEquals(1, r.maxInCluster(), "a tenth of two nodes, at least one");
    assertEquals("GpuUnhealthy=True: Xid 79 on GPU 3", r.cause());
    assertFalse(r.cause().contains("Ready"));
    assertTrue(signals.named("drain").isEmpty(), "no drain past the budget");

    OnConflict.retry(
        () ->
            client
                .nodes()
                .withName("k1")
                .editStatus(
                    n -> {
                      n.getStatus()
                          .getConditions()
                          .removeIf(c -> c.getType().equals("GpuUnhealthy"));
                      return n;
                    }));
    Wait.until("release", () -> !signals.named(Names.SIGNAL_RELEASE).isEmpty());
    SlotRelease rel = (SlotRelease) signals.named(Names.SIGNAL_RELEASE).get(0).payload();
    assertEquals("k8s-unhealthy:k1", rel.key());
  }

  @Test
  void aPodLandingOnACordonedNodeIsDrainedToo() {
    client
        .nodes()
        .withName("k1")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":true}}");
    Wait.until("node cordoned in cache", () -> true);
    client.pods().resource(pod("gpu-5", "k1")).create();
    Wait.until(
        "drain", () -> signals.named("drain").stream().anyMatch(s -> s.target().endsWith("gpu-5")));
    assertEquals(
        "node k1 cordoned in Kubernetes",
        ((NodeCommand) signals.named("drain").get(0).payload()).reason());
  }
}
