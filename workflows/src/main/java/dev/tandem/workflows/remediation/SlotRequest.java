package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * Payload of {@code acquire} to {@code remediation-budget}: a node asks for a slot. Sending it
 * again is harmless (the request keeps its place in line, or its slot).
 *
 * @param k8sNode the Kubernetes node
 * @param nodeSets the NodeSets ({@code <ns>/<name>}) whose slurmd pods run on it
 * @param maxPerNodeSet at most this many holders per NodeSet (the requester's policy)
 * @param domain {@code <label>=<value>} of the node's topology domain, or null
 * @param maxPerDomain at most this many holders in the same domain
 * @param cause the remediation's cause, for the budget's status
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SlotRequest(
    String k8sNode,
    List<String> nodeSets,
    int maxPerNodeSet,
    String domain,
    int maxPerDomain,
    String cause) {
  public SlotRequest {
    nodeSets = nodeSets == null ? List.of() : List.copyOf(nodeSets);
    maxPerNodeSet = Math.max(1, maxPerNodeSet);
    maxPerDomain = Math.max(1, maxPerDomain);
  }
}
