package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.NodeRef;
import java.util.List;
import java.util.Map;

/**
 * Payload of {@code acquire} to {@code remediation-budget}: a Kubernetes node asks for a slot, for
 * its remediation or for its automatic drain. Sending it again is harmless (the request keeps its
 * place in line, or its slot, and is updated).
 *
 * @param k8sNode the Kubernetes node
 * @param nodeSets the NodeSets ({@code <ns>/<name>}) whose slurmd pods run on it
 * @param maxPerNodeSet at most this many Kubernetes nodes per NodeSet hold a slot (the requester's
 *     policy), or 0 when its policy does not say: then {@link RemediationBudget#nodeSetLimit} with
 *     {@code nodeSetNodes}
 * @param domain {@code <label>=<value>} of the node's topology domain, or null
 * @param maxPerDomain at most this many Kubernetes nodes in the same domain hold a slot
 * @param cause the remediation's cause, or the drain's reason (what Slurm shows), for the status
 * @param kind who asks: {@link #REMEDIATION} (null reads as it; the grant goes to {@code
 *     remediation/<k8sNode>}) or {@link #DRAIN} (the watcher, for the unhealthy-condition drain;
 *     the budget itself drains {@code nodes} with owner {@code k8s-unhealthy} when it grants)
 * @param nodes the Slurm nodes to drain ({@link #DRAIN} only)
 * @param nodeSetNodes per NodeSet named: the Kubernetes nodes hosting its slurmd pods (a NodeSet
 *     missing counts as none: its default limit is 0)
 * @param maxInCluster at most this many Kubernetes nodes hold a slot cluster-wide, or 0 for no
 *     cluster limit
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SlotRequest(
    String k8sNode,
    List<String> nodeSets,
    int maxPerNodeSet,
    String domain,
    int maxPerDomain,
    String cause,
    @JsonInclude(JsonInclude.Include.NON_NULL) String kind,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<NodeRef> nodes,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, Integer> nodeSetNodes,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) int maxInCluster) {

  /** A remediation asks for its slot. */
  public static final String REMEDIATION = DrainCause.REMEDIATION.label();

  /** The node watcher asks to drain an unhealthy node. */
  public static final String DRAIN = DrainCause.K8S_UNHEALTHY.label();

  public SlotRequest {
    nodeSets = nodeSets == null ? List.of() : List.copyOf(nodeSets);
    maxPerNodeSet = Math.max(0, maxPerNodeSet);
    maxPerDomain = Math.max(1, maxPerDomain);
    kind = DRAIN.equals(kind) ? DRAIN : null;
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
    nodeSetNodes = nodeSetNodes == null ? Map.of() : Map.copyOf(nodeSetNodes);
    maxInCluster = Math.max(0, maxInCluster);
  }

  /** A remediation's request with an explicit NodeSet limit and no cluster limit. */
  public SlotRequest(
      String k8sNode,
      List<String> nodeSets,
      int maxPerNodeSet,
      String domain,
      int maxPerDomain,
      String cause) {
    this(k8sNode, nodeSets, maxPerNodeSet, domain, maxPerDomain, cause, null, null, null, 0);
  }

  /**
   * A request for {@code k8sNode}, hosting slurmd pods of {@code nodeSets}, under budget {@code b}
   * and {@code shape}: a remediation's ({@code kind} null, no {@code nodes}) or a drain's.
   */
  public static SlotRequest of(
      String k8sNode,
      List<String> nodeSets,
      RemediationBudget b,
      BudgetShape shape,
      String domain,
      String cause,
      String kind,
      List<NodeRef> nodes) {
    BudgetShape s = shape.only(nodeSets);
    return new SlotRequest(
        k8sNode,
        nodeSets,
        b.maxPerNodeSet(),
        domain,
        b.maxPerDomain(),
        cause,
        kind,
        nodes,
        s.nodeSetNodes(),
        s.maxInCluster());
  }

  /** The watcher's request to drain {@code nodes} on an unhealthy node for {@code reason}. */
  public static SlotRequest drain(
      String k8sNode,
      List<NodeRef> nodes,
      RemediationBudget b,
      BudgetShape shape,
      String domain,
      String reason) {
    List<String> sets =
        nodes.stream().map(n -> n.namespace() + "/" + n.nodeSet()).distinct().sorted().toList();
    return of(k8sNode, sets, b, shape, domain, reason, DRAIN, nodes);
  }

  /** The limit of NodeSet {@code ns}'s scope for this request. */
  public int nodeSetLimit(String ns) {
    return RemediationBudget.nodeSetLimit(maxPerNodeSet, nodeSetNodes.getOrDefault(ns, 0));
  }

  public boolean isDrain() {
    return DRAIN.equals(kind);
  }

  /** What the line knows the request by: the node for a remediation, kind and node for a drain. */
  public String key() {
    return key(k8sNode, kind);
  }

  static String key(String k8sNode, String kind) {
    return DRAIN.equals(kind) ? DRAIN + ":" + k8sNode : k8sNode;
  }
}
