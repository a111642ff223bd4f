package dev.tandem.workflows.remediation;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the budget's limits depend on, read from where Tandem's slurmd pods run: how many Kubernetes
 * nodes host each NodeSet's slurmd pods (its scope's default limit keeps the last one, {@link
 * RemediationBudget#nodeSetLimit}) and the cluster scope's limit. Built by whoever asks for a slot
 * (the node watcher for a drain, the remediation's target for its ladder) and carried in the
 * request.
 *
 * @param nodeSetNodes per NodeSet ({@code <ns>/<name>}): Kubernetes nodes hosting its slurmd pods
 * @param maxInCluster at most this many Kubernetes nodes out through automatic actions cluster-wide
 */
public record BudgetShape(Map<String, Integer> nodeSetNodes, int maxInCluster) {
  /** Where a NodeSet's slurmd pod is bound: {@code <ns>/<name>} and the Kubernetes node. */
  public record Placement(String nodeSet, String k8sNode) {}

  public BudgetShape {
    nodeSetNodes = nodeSetNodes == null ? Map.of() : Map.copyOf(nodeSetNodes);
  }

  /**
   * The shape of {@code placements} (bound slurmd pods). {@code configuredMax}: the worker's {@code
   * TANDEM_CLUSTER_BUDGET}, or 0 when not set: then 10% of the Kubernetes nodes hosting slurmd pods
   * (rounded down), at least 1.
   */
  public static BudgetShape of(List<Placement> placements, int configuredMax) {
    Map<String, Set<String>> hosts = new HashMap<>();
    Set<String> all = new HashSet<>();
    for (Placement p : placements) {
      if (p.k8sNode() == null || p.k8sNode().isBlank()) {
        continue;
      }
      hosts.computeIfAbsent(p.nodeSet(), k -> new HashSet<>()).add(p.k8sNode());
      all.add(p.k8sNode());
    }
    Map<String, Integer> sizes = new TreeMap<>();
    hosts.forEach((ns, h) -> sizes.put(ns, h.size()));
    return new BudgetShape(sizes, clusterLimit(configuredMax, all.size()));
  }

  /** {@code configuredMax} when set (> 0), else 10% of {@code hosts}, at least 1. */
  public static int clusterLimit(int configuredMax, int hosts) {
    return configuredMax > 0 ? configuredMax : Math.max(1, hosts / 10);
  }

  /** Only these NodeSets' sizes (what a request names). */
  public BudgetShape only(List<String> nodeSets) {
    Map<String, Integer> m = new TreeMap<>();
    for (String ns : nodeSets) {
      m.put(ns, nodeSetNodes.getOrDefault(ns, 0));
    }
    return new BudgetShape(m, maxInCluster);
  }
}
