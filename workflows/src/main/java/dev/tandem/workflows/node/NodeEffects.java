package dev.tandem.workflows.node;

import dev.tandem.workflows.activities.KubeActivities;
import dev.tandem.workflows.activities.SlurmActivities;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.NodeJobs;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.PodRequest;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.model.TimelineEntry;
import dev.tandem.workflows.support.ActivityStubs;
import dev.tandem.workflows.support.Scoped;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * The node workflow's hands: activity calls that keep {@link NodeLifecycleState} up to date, and
 * its memory of what happened (timeline, problem). An activity that fails after its retries does
 * not fail the workflow: the failure becomes the node's problem and the caller gets {@code null},
 * which every handler treats as "unknown" (fail closed) and answers by waiting for the next poll.
 */
final class NodeEffects {
  private static final Logger log = Workflow.getLogger(NodeEffects.class);

  private final NodeLifecycleInput input;
  private final NodeLifecycleState s;

  /** Inside {@link #localThenRegular}'s second try: the call goes as a regular activity. */
  private boolean slowPath;

  NodeEffects(NodeLifecycleInput input, NodeLifecycleState s) {
    this.input = input;
    this.s = s;
  }

  NodeRef ref() {
    return input.ref();
  }

  long nowMillis() {
    return Workflow.currentTimeMillis();
  }

  // ---- Kubernetes ----

  /** Re-reads the pod; null if Kubernetes could not be read. */
  PodView refreshPod() {
    PodView p = call("read pod", () -> kube("get pod " + ref().pod()).getPod(ns(), ref().pod()));
    if (p != null) {
      s.pod = p;
    }
    return p;
  }

  /**
   * Creates the pod at the target revision if absent; returns what exists afterwards, or null if it
   * could not be read or the cluster refused the pod (then {@link #targetRejected()}).
   */
  PodView ensurePod() {
    String rev = s.target.revision();
    PodView p =
        call(
            "create pod",
            () -> {
              try {
                return kube("create pod " + ref().pod() + " at revision " + rev)
                    .ensurePod(new PodRequest(ref(), s.target, input.ownerUid()));
              } catch (ActivityFailure e) {
                String why = podRejection(e);
                if (why == null) {
                  throw e;
                }
                s.rejectedRevision = rev;
                s.rejection = why;
                log.warn(
                    "{}: the cluster rejected the pod at revision {}: {}", ref().pod(), rev, why);
                timeline("pod-rejected", "revision " + rev + ": " + why);
                return null;
              }
            });
    if (p != null) {
      s.pod = p;
      if (s.rejectedRevision != null && !targetRejected()) {
        // A pod at another revision was accepted: the rejection is history (the NodeSet keeps it).
        s.rejectedRevision = null;
        s.rejection = null;
      }
    }
    return p;
  }

  /** The target revision is one the cluster refused: creating it again would be refused too. */
  boolean targetRejected() {
    return s.rejectedRevision != null
        && s.target != null
        && s.rejectedRevision.equals(s.target.revision());
  }

  /** The one-line reason if {@code e} is ensurePod's {@link KubeActivities#POD_REJECTED}. */
  private static String podRejection(ActivityFailure e) {
    if (e.getCause() instanceof ApplicationFailure af
        && KubeActivities.POD_REJECTED.equals(af.getType())) {
      return af.getOriginalMessage();
    }
    return null;
  }

  /** Deletes the pod with this uid if present; returns what is left. */
  PodView deletePod(String uid, String why) {
    PodView p =
        call(
            "delete pod",
            () -> kube("delete pod " + ref().pod() + ": " + why).deletePod(ns(), ref().pod(), uid));
    if (p != null) {
      s.pod = p;
    }
    return p;
  }

  /**
   * Runs a Kubernetes activity that returns nothing; false (the failure recorded as the problem) if
   * it failed after its retries.
   */
  boolean kubeDo(String what, String summary, java.util.function.Consumer<KubeActivities> c) {
    return call(what, () -> kubeVoid(summary, c)) != null;
  }

  void event(boolean warning, String reason, String message) {
    EventRequest e =
        warning
            ? EventRequest.warning(ref(), reason, message)
            : EventRequest.normal(ref(), reason, message);
    call("record event", () -> kubeVoid("event " + reason, k -> k.recordEvent(e)));
  }

  // ---- Slurm ----

  SlurmNodeView refreshSlurm() {
    SlurmNodeView v =
        call("read Slurm node", () -> slurm("get node " + slurmName()).getNode(slurmName()));
    if (v != null) {
      s.slurm = v;
    }
    return v;
  }

  /** Re-reads which jobs run on the node; leaves {@code busy} null (unknown) on failure. */
  Boolean refreshJobs() {
    NodeJobs j = call("list jobs", () -> slurm("jobs on " + slurmName()).jobsOnNode(slurmName()));
    if (j == null) {
      s.busy = null;
      return null;
    }
    s.busy = j.busy();
    s.jobIds = new java.util.ArrayList<>(j.jobIds());
    return s.busy;
  }

  /** Drains in Slurm with {@code reason} (never replacing an administrator's reason). */
  boolean drain(String reason) {
    SlurmNodeView v =
        call(
            "drain in Slurm",
            () -> slurm("drain " + slurmName() + ": " + reason).drain(slurmName(), reason));
    if (v == null) {
      return false;
    }
    s.slurm = v;
    return true;
  }

  /** Lifts Tandem's own drain (or down) in Slurm; an administrator's stays. */
  boolean releaseDrain() {
    SlurmNodeView v =
        call("undrain in Slurm", () -> slurm("undrain " + slurmName()).undrain(slurmName()));
    if (v == null) {
      return false;
    }
    s.slurm = v;
    return true;
  }

  boolean forceDown(String reason) {
    SlurmNodeView v =
        call(
            "mark down in Slurm",
            () -> slurm("force down " + slurmName()).forceDown(slurmName(), reason));
    if (v != null) {
      s.slurm = v;
    }
    return v != null;
  }

  /** Removes the Slurm node record; null if Slurm could not be reached. */
  Boolean removeSlurmNode() {
    return call(
        "remove Slurm node", () -> slurm("remove node " + slurmName()).removeNode(slurmName()));
  }

  // ---- memory ----

  /** The reason Slurm should show: the highest-precedence hold's. */
  String topReason() {
    for (DrainCause c : DrainCause.values()) {
      String r = s.holds.get(c.label());
      if (r != null) {
        return r;
      }
    }
    return null;
  }

  void hold(DrainCause cause, String detail) {
    s.holds.put(cause.label(), DrainReason.format(cause, detail));
  }

  void timeline(String event, String detail) {
    s.timeline.add(new TimelineEntry(Instant.ofEpochMilli(nowMillis()), s.phase, event, detail));
    int limit = Math.max(10, input.tuning().timelineLimit());
    while (s.timeline.size() > limit) {
      s.timeline.remove(0);
    }
  }

  /** Sets or clears the current problem, recording a change in the timeline. */
  void problem(String p) {
    if (java.util.Objects.equals(p, s.problem)) {
      return;
    }
    s.problem = p;
    timeline(p == null ? "problem-cleared" : "problem", p == null ? "" : p);
  }

  /** Seconds spent in the current phase. */
  long secondsInPhase() {
    return (nowMillis() - s.phaseSinceMillis) / 1000;
  }

  boolean slow() {
    return secondsInPhase() >= input.tuning().slowSeconds();
  }

  NodePhase phase() {
    return s.phase;
  }

  // ---- plumbing ----

  private String ns() {
    return ref().namespace();
  }

  private String slurmName() {
    return ref().slurmName();
  }

  private KubeActivities kube(String summary) {
    return ActivityStubs.kube(summary, !slowPath);
  }

  private SlurmActivities slurm(String summary) {
    return ActivityStubs.slurm(summary, !slowPath);
  }

  private Boolean kubeVoid(String summary, java.util.function.Consumer<KubeActivities> c) {
    c.accept(kube(summary));
    return Boolean.TRUE;
  }

  /**
   * Runs an activity; on final failure records the problem and returns null. A problem recorded by
   * an earlier failure of the same step clears when the step succeeds.
   */
  private <T> T call(String what, Supplier<T> f) {
    try {
      // In a scope of its own, so the SDK frees the call's state when it ends (Scoped).
      T v = Scoped.call(() -> localThenRegular(f));
      if (s.problem != null && s.problem.startsWith("cannot " + what)) {
        problem(null);
      }
      return v;
    } catch (ActivityFailure e) {
      String msg = "cannot " + what + ": " + rootMessage(e);
      log.warn("{}: {}", ref().pod(), msg);
      problem(msg);
      return null;
    }
  }

  /**
   * The call as a local activity (a few quick attempts, {@code ActivityStubs.NODE_LOCAL_ATTEMPTS});
   * if those fail and retrying could help, the same call as a regular activity, whose retries the
   * Temporal UI shows as a pending activity with its attempt and last failure (a local activity's
   * retries are invisible until it ends). A refusal ({@code KubeRejected}, {@code SlurmRejected},
   * or any non-retryable failure) is not tried again.
   */
  private <T> T localThenRegular(Supplier<T> f) {
    try {
      return f.get();
    } catch (ActivityFailure e) {
      if (ActivityStubs.refused(e)) {
        throw e;
      }
      slowPath = true;
      try {
        return f.get();
      } finally {
        slowPath = false;
      }
    }
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof ApplicationFailure af) {
      return af.getOriginalMessage();
    }
    return t.getMessage();
  }
}
