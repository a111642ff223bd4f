package dev.tandem.workflows.node;

import static dev.tandem.workflows.model.NodePhase.DELETED;
import static dev.tandem.workflows.model.NodePhase.DELETING;
import static dev.tandem.workflows.model.NodePhase.DRAINED;
import static dev.tandem.workflows.model.NodePhase.DRAINING;
import static dev.tandem.workflows.model.NodePhase.PROVISIONING;
import static dev.tandem.workflows.model.NodePhase.READY;
import static dev.tandem.workflows.model.NodePhase.REGISTERING;
import static dev.tandem.workflows.model.NodePhase.UPDATING;

import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.node.NodeLifecycleState.Operation;
import dev.tandem.workflows.support.Step;

/**
 * One small handler per phase, each in the same shape: observe (re-read what it needs), validate
 * (decide from the fresh view), act (at most one change), then either move to another phase or
 * wait. Handlers never block except in activities; waiting is the caller's job, so that signals are
 * seen as soon as they arrive.
 *
 * <p>The draining and drained phases, and the drain rules the others share, are in {@link
 * NodeDrains}. Before a replacement pod is created the old pod's Slurm record goes ({@link
 * FreshRecord}).
 *
 * <p>Fail closed: when a read fails, the handler stays where it is. In particular a node whose jobs
 * cannot be listed counts as busy, and a pod that cannot be read is neither running nor gone.
 */
final class NodePhases {
  private final NodeLifecycleState s;
  private final NodeEffects fx;
  private final Tuning tuning;
  private final NodeDrains drains;
  private final EvictionMarks marks;
  private final FreshRecord record;

  /** Re-read the world on this pass (set after a timer or resync, not after every signal). */
  boolean refresh = true;

  NodePhases(NodeLifecycleState s, NodeEffects fx, Tuning tuning) {
    this.s = s;
    this.fx = fx;
    this.tuning = tuning;
    this.marks = new EvictionMarks(s, fx);
    this.drains = new NodeDrains(s, fx, tuning, marks);
    this.record = new FreshRecord(s, fx);
  }

  Step<NodePhase> handle() {
    return switch (s.phase) {
      case PROVISIONING -> provisioning();
      case REGISTERING -> registering();
      case READY -> ready();
      case DRAINING -> drains.draining();
      case DRAINED -> drains.drained(refresh);
      case UPDATING -> updating();
      case DELETING -> deleting();
      case DELETED -> Step.stay(DELETED, 0);
    };
  }

  /**
   * Create the pod at the target revision (or adopt the one that exists) and wait until it runs.
   */
  private Step<NodePhase> provisioning() {
    if (s.operation == Operation.DELETE) {
      return Step.to(DRAINING, "delete-requested", "deleting before the node came up");
    }
    PodView pod = fx.refreshPod();
    if (pod == null) {
      return poll();
    }
    if (!pod.exists()) {
      if (fx.targetRejected()) {
        return rejectedWait();
      }
      if (!record.readyForNewPod()) {
        return waiting("removing the old pod's Slurm node record");
      }
      pod = fx.ensurePod();
      if (pod == null) {
        return poll();
      }
      fx.timeline("pod-created", "revision " + s.target.revision());
    }
    if (pod.terminating()) {
      return waiting("previous pod is still terminating");
    }
    if (pod.failed()) {
      fx.deletePod(pod.uid(), "pod ended (" + pod.phase() + ")");
      return waiting("replacing a pod that ended: " + pod.phase());
    }
    adoptRevision(pod);
    if (pod.running()) {
      return Step.to(REGISTERING, "pod-running", where(pod));
    }
    String what = "pod is " + pod.phase() + (pod.message() == null ? "" : ": " + pod.message());
    if (pod.message() != null && !fx.slow()) {
      // Unschedulable (a cordoned node), an image that does not pull: say so now, not when slow.
      fx.problem(what);
      return poll();
    }
    return waiting(what);
  }

  /** Wait until the pod's slurmd has registered, then serve (or stay drained for the holds). */
  private Step<NodePhase> registering() {
    if (s.operation == Operation.DELETE) {
      return Step.to(DRAINING, "delete-requested", "");
    }
    PodView pod = fx.refreshPod();
    if (pod == null) {
      return poll();
    }
    if (NodeDrains.lost(pod)) {
      return drains.podLost(pod);
    }
    SlurmNodeView node = fx.refreshSlurm();
    if (node == null || !node.registeredSince(pod.createdAt())) {
      return waiting("slurmd has not registered yet (" + describe(node) + ")");
    }
    s.holds.remove(DrainCause.POD_DELETED.label());
    fx.problem(null);
    if (!s.holds.isEmpty() || s.operation != Operation.NONE) {
      return Step.to(DRAINING, "registered", "held by " + String.join(", ", s.holds.keySet()));
    }
    // A pod that may still carry the evictable label loses it before it takes jobs.
    if (!marks.protect() || !drains.releaseOwnDrain(node)) {
      return poll();
    }
    return Step.to(READY, "registered", "slurmd registered; in service");
  }

  /** In service. Leave on any hold or operation; replace a pod that vanished. */
  private Step<NodePhase> ready() {
    if (s.operation != Operation.NONE || !s.holds.isEmpty()) {
      return Step.to(DRAINING, "drain-started", fx.topReason());
    }
    if (refresh) {
      fx.refreshPod();
      fx.refreshSlurm();
    }
    if (s.pod != null && NodeDrains.lost(s.pod)) {
      return drains.podLost(s.pod);
    }
    // A Tandem drain without a hold is left over from a crash or an old run: lift it.
    if (s.slurm != null && s.slurm.drainFlag() && DrainReason.ownedByTandem(s.slurm.reason())) {
      if (drains.releaseOwnDrain(s.slurm)) {
        fx.timeline("drain-released", "stale Tandem drain with no holder: " + s.slurm.reason());
      }
    }
    fx.problem(null);
    return Step.stay(READY, tuning.resyncSeconds());
  }

  /** Replace the pod with one at the target revision. */
  private Step<NodePhase> updating() {
    if (s.operation == Operation.DELETE) {
      return Step.to(DELETING, "delete-started", fx.topReason());
    }
    PodView pod = fx.refreshPod();
    if (pod == null) {
      return poll();
    }
    if (pod.exists() && isTarget(pod.revision()) && !pod.terminating() && !pod.failed()) {
      finishUpdate();
      return Step.to(PROVISIONING, "pod-updated", "revision " + s.target.revision());
    }
    if (pod.exists()) {
      if (!pod.terminating()) {
        fx.deletePod(pod.uid(), "update to revision " + s.target.revision());
      }
      return waiting("waiting for the old pod to go");
    }
    if (fx.targetRejected()) {
      return rejectedWait();
    }
    if (!record.readyForNewPod()) {
      return waiting("removing the old pod's Slurm node record");
    }
    pod = fx.ensurePod();
    if (pod == null) {
      return poll();
    }
    finishUpdate();
    return Step.to(PROVISIONING, "pod-created", "revision " + s.target.revision());
  }

  /** Delete the pod, then the Slurm node record. */
  private Step<NodePhase> deleting() {
    PodView pod = fx.refreshPod();
    if (pod == null) {
      return poll();
    }
    if (pod.exists()) {
      if (!pod.terminating()) {
        fx.deletePod(pod.uid(), fx.topReason());
      }
      return waiting("waiting for the pod to go");
    }
    Boolean removed = fx.removeSlurmNode();
    if (removed == null) {
      return poll();
    }
    return Step.to(
        DELETED,
        "deleted",
        removed ? "pod and Slurm node removed" : "pod removed; this Slurm keeps the node record");
  }

  // ---- helpers ----

  private void adoptRevision(PodView pod) {
    if (isTarget(pod.revision())) {
      s.current = s.target;
      if (s.operation == Operation.UPDATE) {
        finishUpdate();
      }
    } else if (s.current == null
        || !java.util.Objects.equals(s.current.revision(), pod.revision())) {
      s.current = new PodTemplate(pod.revision(), null, null);
      fx.timeline("pod-adopted", "existing pod at revision " + pod.revision());
    }
  }

  private void finishUpdate() {
    s.current = s.target;
    s.operation = Operation.NONE;
    s.operationPolicy = null;
    s.holds.remove(DrainCause.UPDATE.label());
  }

  private boolean isTarget(String revision) {
    return s.target != null && java.util.Objects.equals(s.target.revision(), revision);
  }

  /**
   * The cluster refused the target revision's pod: creating it again would be refused again, so
   * wait (no create) for another target, which an {@code update} signal brings and wakes the loop
   * for. The NodeSet sends the last good revision, or a new one when the spec changes.
   */
  private Step<NodePhase> rejectedWait() {
    return Step.stay(s.phase, tuning.resyncSeconds());
  }

  private Step<NodePhase> poll() {
    return Step.stay(s.phase, tuning.pollSeconds());
  }

  /** Wait in a transitional phase; after too long, say so as the node's problem. */
  private Step<NodePhase> waiting(String what) {
    if (fx.slow()) {
      fx.problem("in phase " + s.phase.label() + " for " + fx.secondsInPhase() + "s: " + what);
    }
    return poll();
  }

  private static String where(PodView pod) {
    return pod.k8sNode() == null ? "" : "on " + pod.k8sNode();
  }

  private static String describe(SlurmNodeView n) {
    return n == null ? "Slurm unreadable" : n.known() ? n.summary() : "unknown to Slurm";
  }
}
