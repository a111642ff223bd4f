package dev.tandem.slurm.fake;

import java.util.Set;

/**
 * A partition: its priority tier and what happens to its jobs when a higher tier needs their nodes
 * ({@code preempt/partition_prio}).
 *
 * @param nodes the node names it holds, or null for {@code Nodes=ALL} (dynamic nodes included)
 */
public record FakePartition(
    String name, int priorityTier, PreemptMode preemptMode, Set<String> nodes) {
  /** Slurm's PreemptMode for a partition's jobs. */
  public enum PreemptMode {
    /** Not preemptable. */
    OFF,
    /**
     * Requeued (back to PENDING, restart count + 1); a job submitted without requeue ends
     * PREEMPTED.
     */
    REQUEUE,
    /** Ends PREEMPTED. */
    CANCEL
  }

  public static FakePartition all(String name, int tier, PreemptMode mode) {
    return new FakePartition(name, tier, mode, null);
  }

  boolean holds(String node) {
    return nodes == null || nodes.contains(node);
  }
}
