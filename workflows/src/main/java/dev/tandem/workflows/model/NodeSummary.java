package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/** One row of {@code tandem status}: a node as its NodeSet last heard of it. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeSummary(
    String pod,
    int ordinal,
    NodePhase phase,
    String revision,
    String slurmState,
    String reason,
    String k8sNode,
    String problem) {}
