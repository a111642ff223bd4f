package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * The answer to a NodeSet workflow's {@code status} query: the CR status plus every node.
 *
 * @param ref the NodeSet
 * @param deleting the custom resource is being deleted
 * @param desiredReplicas replicas of the spec in force
 * @param status the status computed when the query is answered, from the workflow's current state;
 *     the custom resource shows the same once the workflow's next write succeeds (a write fails
 *     while Kubernetes is unreachable: this is where KubernetesReachable=False shows)
 * @param nodes every node the NodeSet tracks, by ordinal
 * @param rejectedSignals the latest signals whose payload could not be used (oldest first)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeSetSnapshot(
    NodeSetRef ref,
    boolean deleting,
    int desiredReplicas,
    NodeSetStatusView status,
    List<NodeSummary> nodes,
    List<TimelineEntry> rejectedSignals) {
  public NodeSetSnapshot {
    rejectedSignals = rejectedSignals == null ? List.of() : List.copyOf(rejectedSignals);
  }

  public NodeSetSnapshot(
      NodeSetRef ref,
      boolean deleting,
      int desiredReplicas,
      NodeSetStatusView status,
      List<NodeSummary> nodes) {
    this(ref, deleting, desiredReplicas, status, nodes, List.of());
  }
}
