package dev.tandem.slurm.fake;

import java.util.Set;

/**
 * A partition: its priority tier (pending jobs of a higher tier are scheduled first; preemption
 * follows the jobs' QOS, {@link FakeAccounting}).
 *
 * @param nodes the node names it holds, or null for {@code Nodes=ALL} (dynamic nodes included)
 */
public record FakePartition(String name, int priorityTier, Set<String> nodes) {
  public static FakePartition all(String name, int tier) {
    return new FakePartition(name, tier, null);
  }

  boolean holds(String node) {
    return nodes == null || nodes.contains(node);
  }
}
