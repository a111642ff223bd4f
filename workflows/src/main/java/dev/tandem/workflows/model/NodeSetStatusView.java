package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * The NodeSet custom resource's status, computed by the NodeSet workflow and written by an
 * activity.
 *
 * @param replicas nodes that exist (any phase but deleted)
 * @param readyReplicas nodes in service: phase ready and Slurm serves them (not drained, down or
 *     not responding), not being removed
 * @param updatedReplicas nodes at the update revision
 * @param slurm Slurm-side counts
 * @param currentRevision revision most nodes run when not rolling; the old one while rolling
 * @param updateRevision the revision of the current spec
 * @param observedGeneration spec generation this status describes
 * @param selector label selector of the pods (for the scale subresource)
 * @param conditions Ready, Progressing, Degraded, InvalidSpec, SlurmReachable, KubernetesReachable
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeSetStatusView(
    int replicas,
    int readyReplicas,
    int updatedReplicas,
    SlurmCounts slurm,
    String currentRevision,
    String updateRevision,
    long observedGeneration,
    String selector,
    List<Condition> conditions) {
  public NodeSetStatusView {
    conditions = conditions == null ? List.of() : List.copyOf(conditions);
  }

  /** The condition of that type, or null. */
  public Condition condition(String type) {
    return conditions.stream().filter(c -> c.type().equals(type)).findFirst().orElse(null);
  }
}
