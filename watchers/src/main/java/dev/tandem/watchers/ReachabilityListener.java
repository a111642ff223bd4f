package dev.tandem.watchers;

/** Told whether a dependency answered ({@link dev.tandem.workflows.model.ClusterHealth}). */
@FunctionalInterface
public interface ReachabilityListener {
  /**
   * @param component {@code slurm} or {@code kubernetes}
   * @param reachable whether the last attempt succeeded
   * @param message what failed, or what answers
   */
  void observed(String component, boolean reachable, String message);
}
