package dev.tandem.workflows.node;

import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.SlurmNodeView;

/**
 * Removes the Slurm node record between an old pod and its replacement, so that the new pod's
 * slurmd registers a fresh record. A dynamic node ({@code slurmd -Z}) that registers again under a
 * name slurmctld still knows keeps the old record's settings and ignores its new {@code --conf}:
 * without this a rolling update that changes features, GRES or weight would never reach Slurm
 * (docs/nodeset.md, "The pod contract").
 *
 * <ol>
 *   <li>Only for a replacement: the workflow has had a pod before ({@code current} is set) and that
 *       pod is confirmed gone. A node's first pod keeps whatever record exists.
 *   <li>Read the node first. Unreadable: wait (fail closed). An administrator's drain on it: keep
 *       the record, since removing it would lift the drain, which only an administrator may do; the
 *       timeline says so (the settings change then waits for the administrator).
 *   <li>Remove it with the scale-down activity ({@code removeNode}): unknown counts as removed; a
 *       node this Slurm cannot remove (a static slurm.conf node) stays, and the replacement goes
 *       on; a FUTURE-declared node on 22.05 returns to FUTURE, its settings come from slurm.conf
 *       anyway. A node that jobs still hold is refused: wait and try again (the pod is gone, so
 *       slurmctld ends or requeues them once it marks the node DOWN).
 * </ol>
 */
final class FreshRecord {
  private final NodeLifecycleState s;
  private final NodeEffects fx;

  FreshRecord(NodeLifecycleState s, NodeEffects fx) {
    this.s = s;
    this.fx = fx;
  }

  /**
   * Called with the old pod gone, just before the new pod is created. Returns false to wait (Slurm
   * unreachable or the node still busy); true to create the pod.
   */
  boolean readyForNewPod() {
    if (s.current == null) {
      return true;
    }
    SlurmNodeView node = fx.refreshSlurm();
    if (node == null) {
      return false;
    }
    if (!node.known()) {
      return true;
    }
    String reason = node.reason();
    if (node.drainFlag() && reason != null && !reason.isBlank()) {
      if (!DrainReason.ownedByTandem(reason)) {
        fx.timeline("slurm-record-kept", "an administrator's drain is on it: " + reason);
        return true;
      }
    }
    Boolean removed = fx.removeSlurmNode();
    if (removed == null) {
      return false;
    }
    fx.timeline(
        removed ? "slurm-record-removed" : "slurm-record-kept",
        removed ? "the new pod registers afresh" : "this Slurm cannot remove the node record");
    return true;
  }
}
