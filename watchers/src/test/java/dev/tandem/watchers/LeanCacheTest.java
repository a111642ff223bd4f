package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The watchers' informer caches keep no {@code managedFields}: the API server sends them with every
 * object, no watcher reads them, and at thousands of slurmd pods they were most of the worker's
 * heap.
 */
@ExtendWith(KubeNamespace.class)
class LeanCacheTest extends WatcherTestBase {
  static KubernetesClient client;

  private PodWatcher pods;

  @AfterEach
  void stop() {
    if (pods != null) {
      pods.close();
    }
  }

  /** Labels the pod with another revision: a write that adds a managed-fields entry. */
  private static void revision(String r) {
    client
        .pods()
        .withName("lean-0")
        .edit(
            p ->
                new io.fabric8.kubernetes.api.model.PodBuilder(p)
                    .editMetadata()
                    .addToLabels("tandem.dev/revision", r)
                    .endMetadata()
                    .build());
  }

  @Test
  void cachedPodsCarryNoManagedFieldsButEverythingElse() {
    client.nodes().resource(K8sObjects.node("k1")).create();
    client.pods().resource(K8sObjects.slurmdPod("lean-0", "k1").build()).create();
    revision("r2");
    Pod stored = client.pods().withName("lean-0").get();
    assertFalse(
        stored.getMetadata().getManagedFields().isEmpty(),
        "the API server sends managedFields (else this test proves nothing)");

    pods = new PodWatcher(client, coalescer, signals, metrics, Duration.ofMinutes(10));
    pods.start();
    Wait.until("synced", () -> pods.synced());
    Wait.until("cached", () -> pods.informer().getStore().list().size() == 1);
    List<Pod> cached = pods.informer().getStore().list();
    Pod c = cached.get(0);
    assertTrue(
        c.getMetadata().getManagedFields() == null || c.getMetadata().getManagedFields().isEmpty(),
        "cached without managedFields: " + c.getMetadata().getManagedFields());
    assertEquals("r2", c.getMetadata().getLabels().get("tandem.dev/revision"));
    assertEquals(stored.getMetadata().getUid(), c.getMetadata().getUid());
    assertEquals(stored.getSpec().getNodeName(), c.getSpec().getNodeName());

    // An update arrives through the watch: trimmed as well.
    revision("r3");
    Wait.until(
        "updated",
        () ->
            "r3"
                .equals(
                    pods.informer()
                        .getStore()
                        .list()
                        .get(0)
                        .getMetadata()
                        .getLabels()
                        .get("tandem.dev/revision")));
    Pod u = pods.informer().getStore().list().get(0);
    assertTrue(
        u.getMetadata().getManagedFields() == null || u.getMetadata().getManagedFields().isEmpty());
  }
}
