package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * {@code spec.autoscaling} of a NodeSet: its workflow sets {@code spec.replicas} from Slurm's
 * demand on the NodeSet's partitions and from how long its nodes have been idle (docs/nodeset.md,
 * "Autoscaling").
 *
 * @param minReplicas never fewer nodes (0 allowed: the NodeSet gives every node back when idle)
 * @param maxReplicas never more nodes
 * @param idleSeconds how long a node must be idle in Slurm before it is given back
 * @param scaleUpDelaySeconds how long demand must stand before nodes are added (a job Slurm is
 *     about to place on a node that is freeing up asks for nothing new)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Autoscaling(
    int minReplicas, int maxReplicas, long idleSeconds, long scaleUpDelaySeconds) {
  /** {@code idleTime} when the spec does not say. */
  public static final long DEFAULT_IDLE_SECONDS = 600;

  /** {@code scaleUpDelay} when the spec does not say. */
  public static final long DEFAULT_SCALE_UP_DELAY_SECONDS = 5;
}
