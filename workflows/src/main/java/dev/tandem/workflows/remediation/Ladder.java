package dev.tandem.workflows.remediation;

import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The mutable state of one remediation run: what {@link RemediationState} carries (query answer,
 * continue-as-new), plus what a run may forget (a grant seen, a reboot confirmed) because the next
 * run asks again.
 */
final class Ladder {
  /** The last this many timeline entries are kept (the oldest dropped first). */
  static final int TIMELINE_LIMIT = 200;

  final String k8sNode;
  RemediationStep step = RemediationStep.OBSERVING;
  long stepSinceMillis;
  Instant startedAt;
  final List<RemediationTrigger> triggers = new ArrayList<>();
  RemediationTarget target;
  int rung = -1;
  NodeHealth lastCheck;
  String outcome;
  Instant actionAt;
  RemediationState.CheckState check;
  private final Deque<RemediationTimelineEntry> timeline = new ArrayDeque<>();

  // Not carried: a new run asks again (the budget re-sends grants, rebootDone answers again).
  boolean granted;
  boolean rebootConfirmed;
  long lastAcquireMillis = -1;
  boolean jobsTimeoutRecorded;

  /** Every rung was tried (or there is none): the ladder ends FAILED once its effects went out. */
  boolean exhausted;

  boolean undrainSent;
  boolean failDrainSent;
  String lastProblem;

  Ladder(String k8sNode) {
    this.k8sNode = k8sNode;
  }

  static Ladder from(RemediationState c) {
    Ladder l = new Ladder(c.k8sNode());
    l.step = c.step() == null ? RemediationStep.OBSERVING : c.step();
    l.stepSinceMillis = c.stepSince() == null ? now() : c.stepSince().toEpochMilli();
    l.startedAt = c.startedAt();
    l.triggers.addAll(c.triggers());
    l.target = c.target();
    l.rung = c.rung();
    l.lastCheck = c.lastCheck();
    l.outcome = c.outcome();
    l.actionAt = c.actionAt();
    l.check = c.check();
    l.timeline.addAll(c.timeline());
    return l;
  }

  RemediationState state() {
    return new RemediationState(
        k8sNode,
        step,
        Instant.ofEpochMilli(stepSinceMillis),
        startedAt,
        triggers,
        target,
        rung,
        lastCheck,
        outcome,
        List.copyOf(timeline),
        actionAt,
        check);
  }

  static long now() {
    return Workflow.currentTimeMillis();
  }

  /** Seconds spent in the current step (workflow time). */
  long secondsInStep() {
    return (now() - stepSinceMillis) / 1000;
  }

  /** The first valid trigger, or null. */
  RemediationTrigger first() {
    return triggers.stream().filter(RemediationTrigger::valid).findFirst().orElse(null);
  }

  /** The cause shown in drains, events and metrics: {@code <Kind>: <detail>}. */
  String cause() {
    RemediationTrigger t = first();
    return t == null ? "unknown" : t.cause();
  }

  RemediationPolicy policy() {
    return target == null ? RemediationPolicy.defaults() : target.policy();
  }

  /** The rung being tried, or null before the first / after the last. */
  LadderStep currentRung() {
    List<LadderStep> steps = policy().steps();
    return rung >= 0 && rung < steps.size() ? steps.get(rung) : null;
  }

  /** Moves to {@code next} (at rung {@code r}), recording why. */
  void enter(RemediationStep next, int r, String event, String detail) {
    step = next;
    rung = r;
    stepSinceMillis = now();
    actionAt = null;
    rebootConfirmed = false;
    jobsTimeoutRecorded = false;
    exhausted = false;
    lastProblem = null;
    timeline(event, detail);
  }

  void enter(RemediationStep next, String event, String detail) {
    enter(next, rung, event, detail);
  }

  void timeline(String event, String detail) {
    timeline.addLast(
        new RemediationTimelineEntry(Instant.ofEpochMilli(now()), step, event, detail));
    while (timeline.size() > TIMELINE_LIMIT) {
      timeline.removeFirst();
    }
  }

  /** Records a problem (a failed call) once, not on every tick while it lasts. */
  void problem(String what) {
    if (!what.equals(lastProblem)) {
      lastProblem = what;
      timeline("problem", what);
    }
  }
}
