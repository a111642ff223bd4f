package dev.tandem.devstack.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The default scheduler's filters, enough for the dev stack: node Ready, not cordoned (unless the
 * pod tolerates {@code node.kubernetes.io/unschedulable}), taints tolerated, {@code nodeSelector},
 * required node affinity, cpu/memory/pod-count fit. Among fitting nodes the one with fewest pods
 * wins (then the name), which spreads pods like the default scoring does on an idle cluster.
 */
final class NodeFit {
  private NodeFit() {}

  /** The chosen node, or null with a scheduler-style explanation. */
  record Decision(String node, String message) {}

  static Decision choose(Pod pod, List<Node> nodes, Map<String, List<Pod>> podsByNode) {
    Map<String, Integer> reasons = new TreeMap<>();
    List<Node> fit = new ArrayList<>();
    for (Node n : nodes) {
      String why = reject(pod, n, podsByNode.getOrDefault(n.getMetadata().getName(), List.of()));
      if (why == null) {
        fit.add(n);
      } else {
        reasons.merge(why, 1, Integer::sum);
      }
    }
    if (!fit.isEmpty()) {
      Node best =
          fit.stream()
              .min(
                  Comparator.comparingInt(
                          (Node n) ->
                              podsByNode.getOrDefault(n.getMetadata().getName(), List.of()).size())
                      .thenComparing(n -> n.getMetadata().getName()))
              .orElseThrow();
      return new Decision(best.getMetadata().getName(), null);
    }
    StringBuilder b = new StringBuilder();
    b.append("0/").append(nodes.size()).append(" nodes are available");
    String sep = ": ";
    for (Map.Entry<String, Integer> e : reasons.entrySet()) {
      b.append(sep).append(e.getValue()).append(' ').append(e.getKey());
      sep = ", ";
    }
    return new Decision(null, b.append('.').toString());
  }

  /** Why {@code n} cannot take {@code pod}, or null when it can. */
  static String reject(Pod pod, Node n, List<Pod> onNode) {
    if (!ready(n)) {
      return "node(s) were not ready";
    }
    List<Toleration> tolerations =
        pod.getSpec().getTolerations() == null ? List.of() : pod.getSpec().getTolerations();
    if (Boolean.TRUE.equals(n.getSpec().getUnschedulable())
        && !tolerates(
            tolerations, new Taint("NoSchedule", "node.kubernetes.io/unschedulable", null, null))) {
      return "node(s) were unschedulable";
    }
    if (n.getSpec().getTaints() != null) {
      for (Taint t : n.getSpec().getTaints()) {
        if (!"PreferNoSchedule".equals(t.getEffect()) && !tolerates(tolerations, t)) {
          return "node(s) had untolerated taint {"
              + t.getKey()
              + ": "
              + Objects.toString(t.getValue(), "")
              + "}";
        }
      }
    }
    Map<String, String> labels =
        n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
    Map<String, String> selector = pod.getSpec().getNodeSelector();
    if (selector != null) {
      for (Map.Entry<String, String> e : selector.entrySet()) {
        if (!e.getValue().equals(labels.get(e.getKey()))) {
          return "node(s) didn't match Pod's node affinity/selector";
        }
      }
    }
    if (!affinityMatches(pod, labels)) {
      return "node(s) didn't match Pod's node affinity/selector";
    }
    return resources(pod, n, onNode);
  }

  private static boolean ready(Node n) {
    return n.getStatus() != null
        && n.getStatus().getConditions() != null
        && n.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  static boolean tolerates(List<Toleration> tolerations, Taint taint) {
    for (Toleration t : tolerations) {
      boolean effect =
          t.getEffect() == null
              || t.getEffect().isEmpty()
              || t.getEffect().equals(taint.getEffect());
      boolean exists = "Exists".equals(t.getOperator());
      boolean key =
          t.getKey() == null || t.getKey().isEmpty() ? exists : t.getKey().equals(taint.getKey());
      boolean value =
          exists
              || Objects.equals(
                  Objects.toString(t.getValue(), ""), Objects.toString(taint.getValue(), ""));
      if (effect && key && value) {
        return true;
      }
    }
    return false;
  }

  private static boolean affinityMatches(Pod pod, Map<String, String> labels) {
    var aff = pod.getSpec().getAffinity();
    if (aff == null || aff.getNodeAffinity() == null) {
      return true;
    }
    var required = aff.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
    if (required == null
        || required.getNodeSelectorTerms() == null
        || required.getNodeSelectorTerms().isEmpty()) {
      return true;
    }
    for (NodeSelectorTerm term : required.getNodeSelectorTerms()) {
      if (term.getMatchExpressions() != null
          && term.getMatchExpressions().stream().allMatch(r -> matches(r, labels))) {
        return true; // terms are ORed, expressions ANDed
      }
    }
    return false;
  }

  private static boolean matches(NodeSelectorRequirement r, Map<String, String> labels) {
    String v = labels.get(r.getKey());
    List<String> values = r.getValues() == null ? List.of() : r.getValues();
    return switch (r.getOperator()) {
      case "In" -> v != null && values.contains(v);
      case "NotIn" -> v == null || !values.contains(v);
      case "Exists" -> v != null;
      case "DoesNotExist" -> v == null;
      case "Gt", "Lt" -> v != null && compare(v, values, r.getOperator());
      default -> false;
    };
  }

  private static boolean compare(String v, List<String> values, String op) {
    try {
      long a = Long.parseLong(v);
      long b = Long.parseLong(values.get(0));
      return op.equals("Gt") ? a > b : a < b;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * The NodeResourcesFit filter: every resource the pod requests must fit in what the node
   * allocates minus what its pods request; a resource the node does not list counts as 0.
   */
  private static String resources(Pod pod, Node n, List<Pod> onNode) {
    Map<String, Quantity> alloc =
        n.getStatus().getAllocatable() != null ? n.getStatus().getAllocatable() : Map.of();
    if (alloc.containsKey("pods") && onNode.size() + 1 > amount(alloc.get("pods")).longValue()) {
      return "Too many pods";
    }
    for (Map.Entry<String, BigDecimal> want : PodResources.requests(pod).entrySet()) {
      String r = want.getKey();
      if (want.getValue().signum() == 0) {
        continue;
      }
      BigDecimal used = BigDecimal.ZERO;
      for (Pod p : onNode) {
        used = used.add(PodResources.requests(p).getOrDefault(r, BigDecimal.ZERO));
      }
      BigDecimal cap = alloc.containsKey(r) ? amount(alloc.get(r)) : BigDecimal.ZERO;
      if (used.add(want.getValue()).compareTo(cap) > 0) {
        return "Insufficient " + r;
      }
    }
    return null;
  }

  private static BigDecimal amount(Quantity q) {
    return Quantity.getAmountInBytes(q);
  }
}
