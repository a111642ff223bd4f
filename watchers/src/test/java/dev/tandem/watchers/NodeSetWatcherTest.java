package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.api.NodeSet;
import dev.tandem.workflows.model.NodeSetSpecView;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LocalKubernetes.class)
class NodeSetWatcherTest extends WatcherTestBase {
  static KubernetesClient client;

  private NodeSetWatcher watcher;

  @BeforeEach
  void start() {
    watcher = nodeSetWatcher(client);
    watcher.start();
    Wait.until("synced", watcher::synced);
  }

  @AfterEach
  void stop() {
    watcher.close();
  }

  private GenericKubernetesResource get(String name) {
    return NodeSetResources.generic(client).inNamespace("default").withName(name).get();
  }

  @Test
  void aNewNodeSetGetsTheFinalizerAndItsWorkflowTheSpec() {
    NodeSetResources.generic(client)
        .resource(
            K8sObjects.nodeSet(
                "gpu-a",
                "  replicas: 2\n  template:\n    spec:\n      containers:\n      - name: slurmd\n"
                    + "        image: tandem/slurmd:22.05\n"))
        .create();
    Wait.until(
        "finalizer", () -> get("gpu-a").getMetadata().getFinalizers().contains(NodeSet.FINALIZER));
    Wait.until(
        "spec signal",
        () -> !signals.matching(s -> s.target().equals("nodeset/default/gpu-a")).isEmpty());
    RecordingSignals.Sent s =
        signals.matching(x -> x.target().equals("nodeset/default/gpu-a")).get(0);
    assertEquals("specChanged", s.signal());
    NodeSetSpecView v = (NodeSetSpecView) s.payload();
    assertEquals(2, v.replicas());
    assertTrue(v.problems().isEmpty(), v.problems().toString());
  }

  @Test
  void garbageInTheSpecReachesTheWorkflowAsProblemsNotAsACrash() {
    NodeSetResources.generic(client)
        .resource(
            // What a real API server lets through (the CRD checks the template only shallowly): a
            // misspelt pod field.
            K8sObjects.nodeSet(
                "junk",
                "  replicas: 1\n  template:\n    spec:\n      nodeSelectr: {a: b}\n"
                    + "      containers:\n      - name: slurmd\n        image: x\n"))
        .create();
    Wait.until("spec signal", () -> !signals.matching(s -> s.target().endsWith("/junk")).isEmpty());
    NodeSetSpecView v =
        (NodeSetSpecView) signals.matching(s -> s.target().endsWith("/junk")).get(0).payload();
    assertTrue(!v.problems().isEmpty());
    // The watcher keeps working for other NodeSets.
    NodeSetResources.generic(client)
        .resource(
            K8sObjects.nodeSet(
                "ok",
                "  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: slurmd\n"
                    + "        image: x\n"))
        .create();
    Wait.until("ok signal", () -> !signals.matching(s -> s.target().endsWith("/ok")).isEmpty());
  }

  @Test
  void deletionIsSignalledWhileTheFinalizerHoldsTheResource() {
    NodeSetResources.generic(client)
        .resource(
            K8sObjects.nodeSet(
                "bye",
                "  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: slurmd\n"
                    + "        image: x\n"))
        .create();
    Wait.until(
        "finalizer", () -> get("bye").getMetadata().getFinalizers().contains(NodeSet.FINALIZER));
    NodeSetResources.generic(client).inNamespace("default").withName("bye").delete();
    Wait.until(
        "delete signal",
        () ->
            !signals
                .matching(s -> s.signal().equals("delete") && s.target().endsWith("/bye"))
                .isEmpty());
    assertTrue(get("bye") != null, "held by the finalizer until the workflow releases it");
  }
}
