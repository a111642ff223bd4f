package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.SlurmNodeView;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Deleting a Kubernetes Node that hosts slurmd pods waits, on the real API server, until the Slurm
 * watcher's view says no job runs there ({@link NodeFinalizer}).
 */
@ExtendWith(KubeNamespace.class)
class NodeFinalizerTest extends WatcherTestBase {
  static KubernetesClient client;

  private final Map<String, SlurmNodeView> slurm = new ConcurrentHashMap<>();
  private PodWatcher pods;
  private K8sNodeWatcher nodes;

  @BeforeEach
  void start() {
    pods = podWatcher(client);
    nodes =
        new K8sNodeWatcher(
            client, pods, coalescer, signals, metrics, Set.of(), RESYNC, r -> null, 0, slurm::get);
    pods.onPodChanged(nodes::podChanged);
    client.nodes().resource(K8sObjects.node("k1")).create();
    pods.start();
    nodes.start();
    Wait.until("synced", () -> pods.synced() && nodes.synced());
  }

  @AfterEach
  void stop() {
    nodes.close();
    pods.close();
  }

  private static SlurmNodeView view(String name, String state, String... flags) {
    return new SlurmNodeView(name, true, state, Set.of(flags), null, null, null, Instant.now());
  }

  private static List<String> finalizers(String node) {
    Node n = client.nodes().withName(node).get();
    return n == null || n.getMetadata().getFinalizers() == null
        ? List.of()
        : n.getMetadata().getFinalizers();
  }

  /** A change of the Node that the watcher must look at; returns once its cache has it. */
  private void touch(String node, String value) throws InterruptedException {
    client
        .nodes()
        .withName(node)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"touched\":\"" + value + "\"}}}");
    Wait.until(
        "the watcher sees " + node + " touched",
        () -> value.equals(nodes.cached(node).getMetadata().getLabels().get("touched")));
    Thread.sleep(1000); // what the watcher would write for this version, it has written
  }

  @Test
  void aDeletedNodeStaysUntilTheJobsOnItsSlurmNodesEnd() throws Exception {
    client.pods().resource(K8sObjects.slurmdPod("gpu-0", "k1").build()).create();
    client.pods().resource(K8sObjects.slurmdPod("gpu-1", "k1").build()).create();
    Wait.until("finalizer", () -> finalizers("k1").contains(NodeFinalizer.FINALIZER));
    slurm.put("gpu-0", view("gpu-0", "allocated"));
    slurm.put("gpu-1", view("gpu-1", "idle"));

    client.nodes().withName("k1").delete();
    Wait.until(
        "both Slurm nodes drained as being deleted",
        () ->
            signals.named(Names.SIGNAL_DRAIN).stream()
                    .filter(s -> ((NodeCommand) s.payload()).reason().contains("being deleted"))
                    .count()
                == 2);

    // gpu-1 drained and idle, gpu-0 still running its job: held.
    slurm.put("gpu-0", view("gpu-0", "mixed", "DRAIN"));
    slurm.put("gpu-1", view("gpu-1", "idle", "DRAIN"));
    touch("k1", "1");
    assertNotNull(client.nodes().withName("k1").get(), "released while a job ran");
    // Not read from Slurm yet (no view): held.
    slurm.remove("gpu-0");
    touch("k1", "2");
    assertNotNull(client.nodes().withName("k1").get(), "released without a view of gpu-0");
    // Drained, the job completing: held.
    slurm.put("gpu-0", view("gpu-0", "idle", "DRAIN", "COMPLETING"));
    touch("k1", "3");
    assertNotNull(client.nodes().withName("k1").get(), "released while a job was completing");

    // The job ended: released at the next look (every RECHECK), with no Node event.
    slurm.put("gpu-0", view("gpu-0", "idle", "DRAIN"));
    Wait.until("k1 gone", () -> client.nodes().withName("k1").get() == null);
  }

  @Test
  void aNodeWithoutSlurmdPodsIsNotHeld() throws Exception {
    client.pods().resource(K8sObjects.slurmdPod("gpu-0", "k1").build()).create();
    Wait.until("finalizer", () -> finalizers("k1").contains(NodeFinalizer.FINALIZER));
    client.pods().withName("gpu-0").withGracePeriod(0).delete();
    Wait.until("finalizer gone", () -> !finalizers("k1").contains(NodeFinalizer.FINALIZER));

    // A Node that never hosted one is deleted at once.
    client.nodes().resource(K8sObjects.node("k2")).create();
    touch("k2", "1");
    assertFalse(finalizers("k2").contains(NodeFinalizer.FINALIZER));
    client.nodes().withName("k2").delete();
    Wait.until("k2 gone", () -> client.nodes().withName("k2").get() == null);
  }
}
