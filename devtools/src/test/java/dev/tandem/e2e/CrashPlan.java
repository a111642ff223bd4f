package dev.tandem.e2e;

import dev.tandem.slurm.SlurmNode;
import java.util.Map;
import java.util.Set;

/**
 * When one run of the crash scenario kills the worker, besides the kills the scenario itself asks
 * for ({@link WorkerKiller#killNow}):
 *
 * @param name shown in the summary
 * @param firstAt the first kill once this many activity attempts have started in total
 * @param every then again every this many (0: no kills by count)
 * @param moments kills at the first sight of each of these moments
 */
record CrashPlan(String name, long firstAt, long every, Set<Moment> moments) {

  /** A moment of the scenario, seen from outside (Slurm and the pods), at which to kill. */
  enum Moment {
    UPDATE_DRAIN("a node drains for the update", "tandem:update:"),
    MANUAL_DRAIN("a node drains for tandem drain", "tandem:manual:"),
    CORDON_DRAIN("a node drains for a cordon", "tandem:k8s-cordon:"),
    SCALE_DOWN_DRAIN("a node drains for the scale-down", "tandem:scale-down:"),
    POD_DELETED("a pod is deleted (updating)", null),
    NODE_REMOVED("a node leaves Slurm (deleting)", null);

    final String label;
    private final String reasonPrefix;

    Moment(String label, String reasonPrefix) {
      this.label = label;
      this.reasonPrefix = reasonPrefix;
    }

    /**
     * Whether the moment has come.
     *
     * @param nodes Slurm's nodes now
     * @param podsDeleted how many of the NodeSet's pods were seen deleted so far
     * @param nodesSeen names of the NodeSet's Slurm nodes seen listed so far
     * @param prefix the NodeSet's node name prefix ({@code e2e-})
     */
    boolean reached(
        Map<String, SlurmNode> nodes, int podsDeleted, Set<String> nodesSeen, String prefix) {
      if (reasonPrefix != null) {
        return nodes.values().stream()
            .anyMatch(
                n ->
                    n.name().startsWith(prefix)
                        && n.reason() != null
                        && n.reason().startsWith(reasonPrefix));
      }
      if (this == POD_DELETED) {
        return podsDeleted > 0;
      }
      return !nodes.isEmpty() && nodesSeen.stream().anyMatch(n -> !nodes.containsKey(n));
    }
  }
}
