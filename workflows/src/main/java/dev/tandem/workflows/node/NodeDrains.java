package dev.tandem.workflows.node;

import static dev.tandem.workflows.model.NodePhase.DELETING;
import static dev.tandem.workflows.model.NodePhase.DRAINED;
import static dev.tandem.workflows.model.NodePhase.DRAINING;
import static dev.tandem.workflows.model.NodePhase.PROVISIONING;
import static dev.tandem.workflows.model.NodePhase.REGISTERING;
import static dev.tandem.workflows.model.NodePhase.UPDATING;

import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.model.TimeoutAction;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.node.NodeLifecycleState.Operation;
import dev.tandem.workflows.support.Step;
import java.util.Objects;

/**
 * The drain side of the node workflow: the draining and drained phases, and the rules for setting
 * and lifting Tandem's drains in Slurm that the other phases share. Same shape as {@link
 * NodePhases}: observe, decide, at most one change, then move or wait.
 */
final class NodeDrains {
  private final NodeLifecycleState s;
  private final NodeEffects fx;
  private final Tuning tuning;
  private final EvictionMarks marks;

  NodeDrains(NodeLifecycleState s, NodeEffects fx, Tuning tuning, EvictionMarks marks) {
    this.s = s;
    this.fx = fx;
    this.tuning = tuning;
    this.marks = marks;
  }

  /**
   * Drained in Slurm, waiting for running jobs to end. The drain timeout of the pending operation
   * decides what happens when they do not: Wait reports the node stuck and keeps waiting; Force
   * marks the node DOWN (Slurm requeues or ends its jobs) and goes on.
   */
  Step<NodePhase> draining() {
    if (s.holds.isEmpty() && s.operation == Operation.NONE) {
      s.drainStartedMillis = 0;
      return Step.to(REGISTERING, "drain-cancelled", "no holder left");
    }
    String reason = fx.topReason();
    SlurmNodeView node = fx.refreshSlurm();
    if (node == null) {
      return poll();
    }
    if (canDrain(node) && needsDrain(node, reason)) {
      if (!fx.drain(reason)) {
        return poll();
      }
      fx.timeline(
          "drain-set", s.slurm.adminReason() ? "kept admin drain: " + s.slurm.reason() : reason);
    }
    if (s.drainStartedMillis == 0) {
      s.drainStartedMillis = fx.nowMillis();
    }
    // Drained in Slurm again (above): now the pod may lose its evictable label, never before.
    if (!marks.protect()) {
      return poll();
    }
    Boolean busy = fx.refreshJobs();
    if (Boolean.FALSE.equals(busy)) {
      s.drainStartedMillis = 0;
      fx.problem(null);
      return Step.to(DRAINED, "drained", "no job runs");
    }
    DrainPolicy policy = s.operation == Operation.NONE ? null : s.operationPolicy;
    long waited = (fx.nowMillis() - s.drainStartedMillis) / 1000;
    if (policy != null && policy.hasTimeout() && waited >= policy.timeoutSeconds()) {
      String jobs = busy == null ? "unknown jobs" : "jobs " + s.jobIds;
      if (policy.onTimeout() == TimeoutAction.FORCE) {
        String why = reason + " (drain timeout " + policy.timeoutSeconds() + "s: forced)";
        if (!fx.forceDown(why)) {
          return poll();
        }
        s.drainStartedMillis = 0;
        fx.problem(null);
        return Step.to(DRAINED, "drain-forced", "timeout after " + waited + "s; " + jobs);
      }
      fx.problem(
          "drain waiting "
              + waited
              + "s for "
              + jobs
              + ", longer than the "
              + policy.timeoutSeconds()
              + "s timeout (policy Wait)");
    }
    return Step.stay(DRAINING, tuning.pollSeconds());
  }

  /**
   * No job runs. Go on with the pending operation, or stay out of service while held.
   *
   * @param refresh re-read the pod and Slurm on this pass (after a timer or resync)
   */
  Step<NodePhase> drained(boolean refresh) {
    if (s.operation == Operation.DELETE) {
      return Step.to(DELETING, "delete-started", fx.topReason());
    }
    if (s.operation == Operation.UPDATE) {
      return Step.to(UPDATING, "update-started", "to revision " + s.target.revision());
    }
    if (s.holds.isEmpty()) {
      // Protected again before the drain is lifted (in registering); if that fails, stay.
      if (!marks.protect()) {
        return poll();
      }
      return Step.to(REGISTERING, "undrain-started", "no holder left");
    }
    if (refresh) {
      PodView pod = fx.refreshPod();
      if (pod != null && lost(pod)) {
        return podLost(pod);
      }
      fx.refreshSlurm();
    } else if (s.pod != null && lost(s.pod)) {
      // The pod watcher saw it go (an eviction, most likely): recreate it now, not at the resync.
      return podLost(s.pod);
    }
    SlurmNodeView node = s.slurm;
    if (node != null && canDrain(node) && !node.down()) {
      if (!node.drainFlag()) {
        return Step.to(DRAINING, "drain-lost", "Slurm no longer shows the drain; draining again");
      }
      // The holder whose reason Slurm shows may have let go: show the next one's.
      String top = fx.topReason();
      if (needsDrain(node, top) && fx.drain(top)) {
        fx.timeline("reason-updated", top);
      }
    }
    marks.markIfDrained(node);
    return Step.stay(DRAINED, tuning.resyncSeconds());
  }

  /** The pod is gone, going, or ended: it has to be recreated. */
  static boolean lost(PodView pod) {
    return !pod.exists() || pod.terminating() || pod.failed();
  }

  /**
   * The pod vanished or failed behind Tandem's back. Drain the Slurm node so nothing new lands on a
   * dead slurmd, and recreate the pod; the hold lifts once the new slurmd registers.
   */
  Step<NodePhase> podLost(PodView pod) {
    String what = !pod.exists() ? "deleted" : pod.terminating() ? "terminating" : pod.phase();
    fx.hold(DrainCause.POD_DELETED, "pod " + what + " outside Tandem; recreating");
    if (s.slurm != null && canDrain(s.slurm) && needsDrain(s.slurm, fx.topReason())) {
      fx.drain(fx.topReason());
    }
    fx.event(true, "PodLost", "pod " + what + " outside Tandem; recreating it");
    return Step.to(PROVISIONING, "pod-lost", "pod " + what + " outside Tandem");
  }

  /** Lifts a Tandem drain if Slurm shows one; false if Slurm could not be reached. */
  boolean releaseOwnDrain(SlurmNodeView node) {
    boolean ours = DrainReason.ownedByTandem(node.reason());
    if (ours && (node.drainFlag() || node.down())) {
      if (!fx.releaseDrain()) {
        return false;
      }
      fx.timeline("undrained", "lifted " + node.reason());
    }
    return true;
  }

  /**
   * Whether a drain may be set on this node now: Slurm has a record of it whose state can be set,
   * responding or not (see {@link SlurmNodeView#drainable()}): Slurm pings the slurmd after every
   * undrain or resume, and a node whose slurmd does not answer is exactly one that must take no new
   * job.
   */
  static boolean canDrain(SlurmNodeView node) {
    return node.responding() || node.drainable();
  }

  /** Slurm does not yet show our reason (an administrator's drain counts as drained). */
  static boolean needsDrain(SlurmNodeView node, String reason) {
    if (!node.drainFlag()) {
      return true;
    }
    return !node.adminReason() && !Objects.equals(node.reason(), reason);
  }

  private Step<NodePhase> poll() {
    return Step.stay(s.phase, tuning.pollSeconds());
  }
}
