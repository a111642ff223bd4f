package dev.tandem.workflows.model;

import java.util.List;

/**
 * The answer to a NodeSet workflow's {@code status} query: the CR status plus every node.
 *
 * @param ref the NodeSet
 * @param deleting the custom resource is being deleted
 * @param desiredReplicas replicas of the spec in force
 * @param status the status as written to the custom resource
 * @param nodes every node the NodeSet tracks, by ordinal
 * @param rejectedSignals the latest signals whose payload could not be used (oldest first)
 */
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
