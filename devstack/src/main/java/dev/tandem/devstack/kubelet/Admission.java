package dev.tandem.devstack.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The kubelet's resource admission of a pod bound to its node, as a real kubelet does it before
 * starting anything (whatever bound the pod: a scheduler can be wrong or raced):
 *
 * <ol>
 *   <li>The pods already admitted on the node (running, or accepted by this kubelet and not
 *       finished) are counted; the new pod must fit next to them.
 *   <li>Checked in the kubelet's order: pod count, cpu, memory, ephemeral-storage, then every other
 *       (extended) resource the pod requests, by name. A resource the node does not list has
 *       capacity 0.
 *   <li>The first shortfall rejects the pod for good: phase Failed, reason {@code OutOf<resource>}
 *       (e.g. {@code OutOfcpu}, {@code OutOfnvidia.com/gpu}) and the kubelet's message {@code Pod
 *       was rejected: Node didn't have enough resource: cpu, requested: 2000, used: 7000, capacity:
 *       8000} (cpu in millicores, others in units).
 * </ol>
 */
final class Admission {
  private Admission() {}

  /**
   * Why the kubelet refuses a pod (the event's message; the status prefixes "Pod was rejected: ").
   */
  record Rejection(String reason, String message) {}

  private static final List<String> FIRST = List.of("cpu", "memory", "ephemeral-storage");

  /** Null when {@code pod} fits on {@code node} next to {@code admitted}. */
  static Rejection check(Pod pod, Node node, List<Pod> admitted) {
    Map<String, Quantity> alloc =
        node.getStatus() == null || node.getStatus().getAllocatable() == null
            ? Map.of()
            : node.getStatus().getAllocatable();
    if (alloc.containsKey("pods")) {
      long cap = PodResources.amount(alloc.get("pods")).longValue();
      if (admitted.size() + 1 > cap) {
        return shortfall("pods", 1, admitted.size(), cap);
      }
    }
    Map<String, BigDecimal> want = PodResources.requests(pod);
    List<String> order = new ArrayList<>(FIRST);
    want.keySet().stream().filter(r -> !FIRST.contains(r)).sorted().forEach(order::add);
    for (String r : order) {
      BigDecimal w = want.getOrDefault(r, BigDecimal.ZERO);
      if (w.signum() == 0) {
        continue;
      }
      BigDecimal used = BigDecimal.ZERO;
      for (Pod p : admitted) {
        used = used.add(PodResources.requests(p).getOrDefault(r, BigDecimal.ZERO));
      }
      BigDecimal cap = alloc.containsKey(r) ? PodResources.amount(alloc.get(r)) : BigDecimal.ZERO;
      if (used.add(w).compareTo(cap) > 0) {
        return shortfall(
            r, PodResources.shown(r, w), PodResources.shown(r, used), PodResources.shown(r, cap));
      }
    }
    return null;
  }

  private static Rejection shortfall(String r, long requested, long used, long capacity) {
    return new Rejection(
        "OutOf" + r,
        "Node didn't have enough resource: "
            + r
            + ", requested: "
            + requested
            + ", used: "
            + used
            + ", capacity: "
            + capacity);
  }
}
