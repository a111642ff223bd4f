package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The budget's shape the node watcher puts in its drain requests. */
class UnhealthyDrainsTest {
  private static UnhealthyDrains drains(List<Pod> pods, int clusterBudget) {
    return new UnhealthyDrains(
        n -> List.of(),
        () -> pods,
        clusterBudget,
        r -> null,
        null,
        null,
        null,
        Duration.ZERO,
        n -> {});
  }

  private static Pod pod(String namespace, String name, String node) {
    return K8sObjects.slurmdPod(name, node)
        .editMetadata()
        .withNamespace(namespace)
        .addToLabels("tandem.dev/nodeset", name.substring(0, name.indexOf('-')))
        .endMetadata()
        .build();
  }

  @Test
  void countsTheKubernetesNodesOfEachNodeSetAndATenthOfAllForTheCluster() {
    List<Pod> pods = new java.util.ArrayList<>();
    for (int i = 0; i < 20; i++) {
      pods.add(pod("default", "gpu-" + i, "k" + i)); // gpu on k0..k19
    }
    pods.add(pod("default", "gpu-20", "k0")); // a second pod on k0 counts k0 once
    pods.add(pod("lab", "cpu-0", "k30"));
    pods.add(pod("lab", "cpu-1", null)); // not bound: on no node
    var s = drains(pods, 0).shape();
    assertEquals(Map.of("default/gpu", 20, "lab/cpu", 1), s.nodeSetNodes());
    assertEquals(2, s.maxInCluster(), "a tenth of 21 nodes");
    assertEquals(5, drains(pods, 5).shape().maxInCluster(), "TANDEM_CLUSTER_BUDGET as set");
    assertEquals(1, drains(List.of(), 0).shape().maxInCluster(), "at least one");
  }
}
