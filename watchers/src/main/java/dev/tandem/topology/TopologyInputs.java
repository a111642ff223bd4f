package dev.tandem.topology;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The renderer's input from Kubernetes objects: each slurmd pod bound to a Kubernetes node (the
 * Slurm node name is the pod name) with the labels of that node. A pod not bound yet runs no slurmd
 * and is left out; a pod on a node that cannot be found maps to null (the catch-all).
 */
public final class TopologyInputs {
  private TopologyInputs() {}

  /**
   * @param pods slurmd pods (label {@code tandem.dev/nodeset})
   * @param nodes a Kubernetes node by name, or null when unknown
   */
  public static Map<String, Map<String, String>> of(
      Collection<Pod> pods, Function<String, Node> nodes) {
    Map<String, Map<String, String>> out = new TreeMap<>(TopologyRenderer.NATURAL);
    for (Pod p : pods) {
      String on = p.getSpec() == null ? null : p.getSpec().getNodeName();
      if (on == null || on.isBlank()) {
        continue;
      }
      Node n = nodes.apply(on);
      Map<String, String> labels =
          n == null
              ? null
              : new HashMap<>(
                  n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels());
      out.put(p.getMetadata().getName(), labels);
    }
    return out;
  }
}
