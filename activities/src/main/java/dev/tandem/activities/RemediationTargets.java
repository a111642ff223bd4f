package dev.tandem.activities;

import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.NodeSetSpecs;
import dev.tandem.k8s.PodLabels;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.remediation.BudgetShape;
import dev.tandem.workflows.remediation.RemediationPolicy;
import dev.tandem.workflows.remediation.RemediationTarget;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads a {@link RemediationTarget}: the Kubernetes node, Tandem's slurmd pods bound to it (the
 * labels {@link PodLabels#NODESET} and {@link PodLabels#ORDINAL} Tandem puts on them), their
 * NodeSets and the policy. Every read that fails fails the call (Temporal retries); nothing is
 * guessed.
 */
final class RemediationTargets {
  private final KubernetesClient client;
  private final int clusterBudget;

  /**
   * @param clusterBudget {@code TANDEM_CLUSTER_BUDGET}, or 0 for a tenth of the Kubernetes nodes
   *     hosting slurmd pods ({@link BudgetShape#clusterLimit})
   */
  RemediationTargets(KubernetesClient client, int clusterBudget) {
    this.client = client;
    this.clusterBudget = clusterBudget;
  }

  RemediationTarget read(String k8sNode) {
    Node node = KubeCalls.call("get node " + k8sNode, () -> getNode(client, k8sNode));
    List<NodeRef> slurmNodes = slurmdPods(k8sNode);
    TreeSet<String> nodeSets = new TreeSet<>();
    slurmNodes.forEach(n -> nodeSets.add(n.namespace() + "/" + n.nodeSet()));
    Map<String, String> labels =
        node == null || node.getMetadata().getLabels() == null
            ? Map.of()
            : node.getMetadata().getLabels();
    return new RemediationTarget(
        k8sNode,
        node != null,
        slurmNodes,
        List.copyOf(nodeSets),
        labels,
        policy(nodeSets),
        shape());
  }

  /**
   * Where every slurmd pod is bound (the NodeSets' sizes) and the cluster limit, for the budget.
   */
  BudgetShape shape() {
    List<Pod> pods =
        KubeCalls.call(
            "list the slurmd pods",
            () -> client.pods().inAnyNamespace().withLabel(PodLabels.NODESET).list().getItems());
    List<BudgetShape.Placement> placed = new ArrayList<>();
    for (Pod p : pods) {
      Map<String, String> l = p.getMetadata().getLabels();
      String nodeSet = l == null ? null : l.get(PodLabels.NODESET);
      if (nodeSet != null && p.getSpec() != null) {
        placed.add(
            new BudgetShape.Placement(
                p.getMetadata().getNamespace() + "/" + nodeSet, p.getSpec().getNodeName()));
      }
    }
    return BudgetShape.of(placed, clusterBudget);
  }

  static Node getNode(KubernetesClient client, String name) {
    return client.nodes().withName(name).get();
  }

  /** Tandem's slurmd pods bound to {@code k8sNode}, terminating ones included, sorted. */
  List<NodeRef> slurmdPods(String k8sNode) {
    List<Pod> pods =
        KubeCalls.call(
            "list the slurmd pods on node " + k8sNode,
            () ->
                client
                    .pods()
                    .inAnyNamespace()
                    .withLabel(PodLabels.NODESET)
                    .withField("spec.nodeName", k8sNode)
                    .list()
                    .getItems());
    TreeMap<String, NodeRef> out = new TreeMap<>();
    for (Pod p : pods) {
      // The API filters already; filtering again keeps a lax server from handing us other pods.
      if (p.getSpec() == null || !k8sNode.equals(p.getSpec().getNodeName())) {
        continue;
      }
      Map<String, String> l = p.getMetadata().getLabels();
      String nodeSet = l == null ? null : l.get(PodLabels.NODESET);
      Integer ordinal = ordinal(l == null ? null : l.get(PodLabels.ORDINAL));
      if (nodeSet == null || ordinal == null) {
        continue;
      }
      NodeRef ref =
          new NodeRef(p.getMetadata().getNamespace(), nodeSet, p.getMetadata().getName(), ordinal);
      out.put(ref.namespace() + "/" + ref.pod(), ref);
    }
    return new ArrayList<>(out.values());
  }

  private static Integer ordinal(String s) {
    try {
      return s == null ? null : Integer.valueOf(s);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * The policy of the first NodeSet (sorted by namespace/name) that has {@code spec.remediation},
   * else disabled. A NodeSet whose block is invalid counts as having one and gives a disabled
   * policy (the converter fails closed); a NodeSet that is gone is skipped.
   */
  private RemediationPolicy policy(TreeSet<String> nodeSets) {
    for (String ref : nodeSets) {
      int slash = ref.indexOf('/');
      String ns = ref.substring(0, slash);
      String name = ref.substring(slash + 1);
      GenericKubernetesResource r =
          KubeCalls.call(
              "get NodeSet " + ref,
              () -> NodeSetResources.generic(client).inNamespace(ns).withName(name).get());
      if (r == null) {
        continue;
      }
      NodeSetSpecView view = NodeSetSpecs.toView(r);
      if (view.remediation() != null) {
        return view.remediation();
      }
    }
    return RemediationPolicy.disabled();
  }
}
