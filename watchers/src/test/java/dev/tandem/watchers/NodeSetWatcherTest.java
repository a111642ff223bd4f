package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.api.NodeSet;
import dev.tandem.workflows.model.NodeSetSpecView;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class NodeSetWatcherTest {
  static KubernetesClient client;

  private final RecordingSignals signals = new RecordingSignals();
  private final WatcherMetrics metrics = new WatcherMetrics(new SimpleMeterRegistry());
  private Coalescer coalescer;
  private NodeSetWatcher watcher;

  @BeforeEach
  void start() {
    coalescer = new Coalescer(2, Duration.ofMillis(20), metrics);
    watcher = new NodeSetWatcher(client, coalescer, signals, metrics, Duration.ofMinutes(10));
    watcher.start();
    await("synced", watcher::synced);
  }

  @AfterEach
  void stop() {
    watcher.close();
    coalescer.close();
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

  private static GenericKubernetesResource nodeSet(String name, String yamlSpec) {
    String yaml =
        "apiVersion: tandem.dev/v1alpha1\nkind: NodeSet\nmetadata:\n  name: "
            + name
            + "\n  namespace: default\nspec:\n"
            + yamlSpec;
    return Serialization.unmarshal(yaml, GenericKubernetesResource.class);
  }

  private GenericKubernetesResource get(String name) {
    return NodeSetResources.generic(client).inNamespace("default").withName(name).get();
  }

  @Test
  void aNewNodeSetGetsTheFinalizerAndItsWorkflowTheSpec() {
    NodeSetResources.generic(client)
        .resource(
            nodeSet(
                "gpu-a",
                "  replicas: 2\n  template:\n    spec:\n      containers:\n      - name: slurmd\n"
                    + "        image: tandem/slurmd:22.05\n"))
        .create();
    await(
        "finalizer", () -> get("gpu-a").getMetadata().getFinalizers().contains(NodeSet.FINALIZER));
    await(
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
        .resource(nodeSet("junk", "  replicas: lots\n  drain:\n    timeout: 5 parsecs\n"))
        .create();
    await("spec signal", () -> !signals.matching(s -> s.target().endsWith("/junk")).isEmpty());
    NodeSetSpecView v =
        (NodeSetSpecView) signals.matching(s -> s.target().endsWith("/junk")).get(0).payload();
    assertTrue(!v.problems().isEmpty());
    // The watcher keeps working for other NodeSets.
    NodeSetResources.generic(client)
        .resource(
            nodeSet(
                "ok",
                "  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: slurmd\n"
                    + "        image: x\n"))
        .create();
    await("ok signal", () -> !signals.matching(s -> s.target().endsWith("/ok")).isEmpty());
  }

  @Test
  void deletionIsSignalledWhileTheFinalizerHoldsTheResource() {
    NodeSetResources.generic(client)
        .resource(
            nodeSet(
                "bye",
                "  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: slurmd\n"
                    + "        image: x\n"))
        .create();
    await("finalizer", () -> get("bye").getMetadata().getFinalizers().contains(NodeSet.FINALIZER));
    NodeSetResources.generic(client).inNamespace("default").withName("bye").delete();
    await(
        "delete signal",
        () ->
            !signals
                .matching(s -> s.signal().equals("delete") && s.target().endsWith("/bye"))
                .isEmpty());
    assertTrue(get("bye") != null, "held by the finalizer until the workflow releases it");
  }
}
