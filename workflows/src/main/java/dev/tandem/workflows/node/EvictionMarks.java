package dev.tandem.workflows.node;

import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.node.NodeLifecycleState.Eviction;

/**
 * The pod label {@code tandem.dev/evictable}, which takes a slurmd pod out of its NodeSet's
 * PodDisruptionBudget (docs/concepts.md, "Evictions and kubectl drain"). Fail closed:
 *
 * <ol>
 *   <li>Set only in phase drained: Slurm's last word is that the node is drained (or down), and no
 *       job ran when it got there, so Slurm gives it none.
 *   <li>From the moment it is asked for until Kubernetes confirms, the state says {@link
 *       Eviction#UNKNOWN}: the pod may carry it.
 *   <li>Removed ({@link #protect}) before the node lifts its drain or drains again; while the
 *       removal fails the caller stays where it is, so a pod that may be evictable never serves.
 * </ol>
 */
final class EvictionMarks {
  private final NodeLifecycleState s;
  private final NodeEffects fx;

  EvictionMarks(NodeLifecycleState s, NodeEffects fx) {
    this.s = s;
    this.fx = fx;
  }

  /** In drained: labels the current pod evictable if it is not yet. */
  void markIfDrained(SlurmNodeView node) {
    if (!needsMark(node)) {
      return;
    }
    String uid = s.pod.uid();
    s.eviction = Eviction.UNKNOWN;
    s.evictableUid = uid;
    boolean ok =
        fx.kubeDo(
            "label pod evictable",
            "label pod " + fx.ref().pod() + " evictable",
            k -> k.markEvictable(fx.ref().namespace(), fx.ref().pod(), uid, true));
    if (ok) {
      s.eviction = Eviction.EVICTABLE;
      fx.timeline("evictable", "pod " + uid + " may be evicted: drained, no job runs");
    }
  }

  /**
   * Removes the label from the pod it was asked for, if the pod may carry it (a pod since replaced
   * never had it). False if Kubernetes could not say: the caller stays where it is.
   */
  boolean protect() {
    if (s.eviction == Eviction.PROTECTED) {
      return true;
    }
    String uid = s.evictableUid;
    boolean ok =
        fx.kubeDo(
            "remove the evictable label",
            "unlabel pod " + fx.ref().pod() + " evictable",
            k -> k.markEvictable(fx.ref().namespace(), fx.ref().pod(), uid, false));
    if (!ok) {
      s.eviction = Eviction.UNKNOWN;
      return false;
    }
    s.eviction = Eviction.PROTECTED;
    s.evictableUid = null;
    fx.timeline("protected", "evictable label removed");
    return true;
  }

  /** The pod exists and is not labelled yet, and Slurm shows the node drained or down. */
  private boolean needsMark(SlurmNodeView node) {
    PodView pod = s.pod;
    if (pod == null || !pod.exists() || pod.terminating() || pod.uid() == null) {
      return false;
    }
    if (node == null || !node.known() || !(node.drainFlag() || node.down())) {
      return false;
    }
    return s.eviction != Eviction.EVICTABLE || !pod.uid().equals(s.evictableUid);
  }
}
