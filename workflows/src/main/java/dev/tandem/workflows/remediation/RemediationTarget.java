package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.NodeRef;
import java.util.List;
import java.util.Map;

/**
 * A Kubernetes node as remediation sees it when it starts: read once by an activity, then kept in
 * the workflow's state, so the ladder works on the same Slurm nodes even after their pods moved.
 *
 * @param k8sNode the Kubernetes node name
 * @param exists false if the Node object is gone
 * @param slurmNodes Tandem's slurmd pods bound to the node (each a Slurm node), sorted by
 *     namespace/pod
 * @param nodeSets {@code <ns>/<name>} of their NodeSets, sorted
 * @param labels the node's labels (for the budget's topology domain)
 * @param policy the policy of the first NodeSet (sorted) that has {@code spec.remediation}, else
 *     {@link RemediationPolicy#disabled()}
 * @param shape what the budget's limits depend on (the NodeSets' sizes, the cluster limit), as read
 *     with the target; null reads as no NodeSet sizes and no cluster limit
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RemediationTarget(
    String k8sNode,
    boolean exists,
    List<NodeRef> slurmNodes,
    List<String> nodeSets,
    Map<String, String> labels,
    RemediationPolicy policy,
    BudgetShape shape) {
  public RemediationTarget(
      String k8sNode,
      boolean exists,
      List<NodeRef> slurmNodes,
      List<String> nodeSets,
      Map<String, String> labels,
      RemediationPolicy policy) {
    this(k8sNode, exists, slurmNodes, nodeSets, labels, policy, null);
  }

  public RemediationTarget {
    slurmNodes = slurmNodes == null ? List.of() : List.copyOf(slurmNodes);
    nodeSets = nodeSets == null ? List.of() : List.copyOf(nodeSets);
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    policy = policy == null ? RemediationPolicy.disabled() : policy;
    shape = shape == null ? new BudgetShape(null, 0) : shape;
  }
}
