package dev.tandem.workflows.schedule;

import static dev.tandem.workflows.schedule.GroupPhase.DONE;
import static dev.tandem.workflows.schedule.GroupPhase.ENDING;
import static dev.tandem.workflows.schedule.ScheduleConditions.GROUP_MEMBER_ENDED;
import static dev.tandem.workflows.schedule.ScheduleConditions.SLURM_JOB_ENDED;

import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.schedule.GroupEffects.Kind;
import dev.tandem.workflows.schedule.PodGroupState.Member;
import dev.tandem.workflows.schedule.PodScheduleState.Ending;
import dev.tandem.workflows.support.Step;
import java.util.ArrayList;
import java.util.List;

/** The ENDING phase of {@link PodGroupWorkflowImpl} (step 5 of its algorithm). */
final class GroupEnding {
  private final PodGroupInput in;
  private final PodGroupState s;
  private final GroupEffects fx;
  private final Tuning t;

  GroupEnding(PodGroupInput in, PodGroupState s, GroupEffects fx) {
    this.in = in;
    this.s = s;
    this.fx = fx;
    this.t = in.tuning();
  }

  Step<GroupPhase> memberEnded(Member m) {
    String what = describe(m.view);
    String message =
        "member "
            + m.ref()
            + " of group "
            + in.group()
            + " "
            + what
            + ": the group ends"
            + (s.jobId == 0 ? "" : ", Slurm job " + s.jobId + " is cancelled,")
            + " and its other members are evicted";
    s.ending = new Ending(SLURM_JOB_ENDED, GROUP_MEMBER_ENDED, message);
    return Step.to(ENDING, "member-ended", message);
  }

  /**
   * Announces the ending on every member still here (condition, event), evicts them, then cancels
   * every job with the group tag that Slurm still holds (also one whose submit answer was lost).
   * Evicting first keeps Slurm from giving the nodes away while the pods still run on them.
   */
  Step<GroupPhase> ending(boolean refresh) {
    fx.endedMember(refresh);
    Ending e = s.ending;
    for (Member m : s.chosenMembers()) {
      if (m.live() && !m.announced) {
        if (!fx.say(m, e.conditionType(), Condition.TRUE, e.reason(), e.message(), Kind.NONE)) {
          return Step.stay(s.phase, t.pollSeconds());
        }
        // The event is named after the condition, as for a single pod.
        fx.event(m, true, e.conditionType(), e.message());
        m.announced = true;
      }
    }
    for (Member m : s.chosenMembers()) {
      if (m.live()) {
        PodView p = fx.evict(m, e.message());
        if (p == null) {
          return Step.stay(s.phase, t.pollSeconds());
        }
        if (!ScheduleEffects.podDone(p)) {
          s.problem =
              "the eviction of "
                  + m.ref()
                  + " was refused for now (e.g. a PodDisruptionBudget);"
                  + " retrying";
          return Step.stay(s.phase, t.pollSeconds());
        }
      }
    }
    Step<GroupPhase> wait = awaitStop();
    if (wait != null) {
      return wait;
    }
    List<SlurmJobView> jobs = fx.tagged();
    if (jobs == null) {
      return Step.stay(s.phase, t.pollSeconds());
    }
    // Every member stopped (none only being deleted): nothing runs on the nodes any more.
    boolean release = s.chosenMembers().stream().allMatch(m -> ScheduleEffects.podStopped(m.view));
    List<Long> cancelled = new ArrayList<>();
    for (SlurmJobView j : jobs) {
      if (!JobOutlook.finished(j)) {
        if (!fx.cancelJob(j.id(), e.message(), release)) {
          return Step.stay(s.phase, t.pollSeconds());
        }
        cancelled.add(j.id());
      }
    }
    if (ScheduleConditions.SLURM_PREEMPTED.equals(e.conditionType())) {
      long again =
          s.preemptor.next(
              in.config().killWaitSeconds()
                  + in.config().graceMarginSeconds()
                  + 2 * t.pollSeconds(),
              () -> fx.findPreemptor(s.jobId, s.jobNodes()),
              told -> {
                fx.timeline("preemptor", told);
                s.chosenMembers().forEach(m -> fx.event(m, true, e.conditionType(), told));
              });
      if (again > 0) {
        return Step.stay(s.phase, again);
      }
    }
    return Step.to(
        DONE,
        "ended",
        cancelled.isEmpty()
            ? "no Slurm job left"
            : PlaceholderCare.ended(release, cancelled, "every member"));
  }

  /**
   * As a single pod's step 3a ({@code PlaceholderCare}): while members are being deleted (those
   * just evicted, with their grace periods) and the job is live, the job is held until every member
   * is gone or has ended, at most the longest grace period plus the margin; then every member still
   * there is read once more. Null: no wait.
   */
  private Step<GroupPhase> awaitStop() {
    if (s.jobId == 0 || JobOutlook.finished(s.job)) {
      return null;
    }
    List<Member> stopping = s.chosenMembers().stream().filter(m -> stopping(m.view)).toList();
    if (stopping.isEmpty()) {
      return null;
    }
    long grace = stopping.stream().mapToLong(m -> m.request.graceSeconds()).max().orElse(0);
    long left =
        s.stopWait.secondsLeft(
            grace + in.config().graceMarginSeconds(),
            limit ->
                fx.timeline(
                    "awaiting-stop",
                    stopping.size()
                        + " member(s) being deleted: Slurm job "
                        + s.jobId
                        + " is held until they have stopped (at most "
                        + limit
                        + " s), then released"),
            () -> stopping.forEach(fx::refresh));
    return left > 0 ? Step.stay(s.phase, left) : null;
  }

  /** Being deleted, and perhaps still running: not gone, not ended. */
  private static boolean stopping(PodView p) {
    return p != null && p.exists() && p.terminating() && !p.failed();
  }

  private static String describe(PodView p) {
    if (p == null || !p.exists()) {
      return "was deleted";
    }
    return p.terminating() ? "is being deleted" : "ended (" + p.phase() + ")";
  }
}
