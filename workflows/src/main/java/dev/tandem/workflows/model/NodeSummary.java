package dev.tandem.workflows.model;

/** One row of {@code tandem status}: a node as its NodeSet last heard of it. */
public record NodeSummary(
    String pod,
    int ordinal,
    NodePhase phase,
    String revision,
    String slurmState,
    String reason,
    String k8sNode,
    String problem) {}
