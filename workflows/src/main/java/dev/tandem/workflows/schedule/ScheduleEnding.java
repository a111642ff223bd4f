package dev.tandem.workflows.schedule;

import static dev.tandem.workflows.schedule.SchedulePhase.CANCELLING;
import static dev.tandem.workflows.schedule.SchedulePhase.DONE;
import static dev.tandem.workflows.schedule.SchedulePhase.EVICTING;

import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.schedule.PodScheduleState.Ending;
import dev.tandem.workflows.support.Step;

/**
 * How a pod's run ends, for {@link SchedulePhases}: Slurm ended or preempted the job (phase
 * EVICTING: announce, evict, cancel what Slurm still holds), or the pod ended (on to CANCELLING,
 * which {@link PlaceholderCare} handles): the Evicting and Cancelling steps of {@link
 * PodScheduleWorkflowImpl}'s algorithm.
 */
final class ScheduleEnding {
  private final PodScheduleState s;
  private final ScheduleEffects fx;
  private final Tuning t;
  private final PodScheduleInput in;

  ScheduleEnding(PodScheduleInput in, PodScheduleState s, ScheduleEffects fx) {
    this.in = in;
    this.s = s;
    this.fx = fx;
    this.t = in.tuning();
  }

  Step<SchedulePhase> evict(JobOutlook o) {
    boolean preempted = o == JobOutlook.PREEMPTED;
    s.ending = Ending.of(s.job, preempted, nodes());
    return Step.to(EVICTING, preempted ? "preempted" : "job-ended", s.ending.message());
  }

  /**
   * Announces the ending on the pod (condition, event), evicts the pod, then cancels the job if
   * Slurm still holds it (a requeued or suspended placeholder must not run again without its pod).
   */
  Step<SchedulePhase> evicting(boolean refresh) {
    if (refresh) {
      fx.refreshPod();
    }
    Ending e = s.ending;
    PodView evicted = null;
    if (!s.endingAnnounced && !ScheduleEffects.podDone(s.pod)) {
      // Condition, event and eviction in one call.
      Announced a = fx.announceAndEvict(e.conditionType(), e.reason(), e.message());
      if (a == null) {
        return Step.stay(s.phase, t.pollSeconds());
      }
      s.endingAnnounced = true;
      evicted = a.pod(); // null: no answer, evicted again below
    }
    if (!s.endingAnnounced) { // the pod was gone or going already: no eviction
      if (!fx.condition(e.conditionType(), Condition.TRUE, e.reason(), e.message())) {
        return Step.stay(s.phase, t.pollSeconds());
      }
      fx.event(true, e.conditionType(), e.message());
      s.endingAnnounced = true;
    }
    if (!ScheduleEffects.podDone(s.pod)) {
      PodView p = evicted != null ? evicted : fx.evict(e.message());
      if (p == null) {
        return Step.stay(s.phase, t.pollSeconds());
      }
      if (!ScheduleEffects.podDone(p)) {
        s.problem = "the pod's eviction was refused for now (e.g. a PodDisruptionBudget); retrying";
        return Step.stay(s.phase, t.pollSeconds());
      }
    }
    if (!JobOutlook.finished(s.job) && !fx.cancelJob(s.jobId, e.message())) {
      return Step.stay(s.phase, t.pollSeconds());
    }
    if (ScheduleConditions.SLURM_PREEMPTED.equals(e.conditionType())) {
      long wait =
          s.preemptor.next(
              in.config().killWaitSeconds()
                  + in.config().graceMarginSeconds()
                  + 2 * t.pollSeconds(),
              () -> fx.findPreemptor(s.jobId, nodes()),
              told -> {
                fx.timeline("preemptor", told);
                fx.event(true, ScheduleConditions.SLURM_PREEMPTED, told);
              });
      if (wait > 0) {
        return Step.stay(s.phase, wait);
      }
    }
    return Step.to(DONE, "evicted", e.message());
  }

  /** The Slurm nodes the job held: Slurm's last view, else the node the pod was bound to. */
  private java.util.List<String> nodes() {
    return PreemptorSearch.nodes(s.job == null ? null : s.job.nodes(), s.slurmNode);
  }

  Step<SchedulePhase> cancel(String why) {
    return cancel(why, null);
  }

  /**
   * The pod ended, so its job is cancelled. When Slurm had ended the job too (preempted, failed,
   * timed out), the timeline names that first: a pod evicted for its preempted job with a short
   * grace period can be gone before the workflow task that evicted it completes; the server then
   * refuses the task (a signal arrived meanwhile), and its retry sees both at once. Only the
   * timeline's words depend on it: the step, and the reason the job is cancelled with, do not.
   */
  Step<SchedulePhase> cancel(String why, JobOutlook o) {
    s.cancelReason = why;
    if (o == JobOutlook.PREEMPTED || o == JobOutlook.ENDED) {
      boolean preempted = o == JobOutlook.PREEMPTED;
      String ended = Ending.what(s.job, preempted, nodes()) + ", and the pod is gone (" + why + ")";
      return Step.to(CANCELLING, preempted ? "preempted" : "job-ended", ended);
    }
    return Step.to(CANCELLING, "pod-ended", why);
  }

  static String describe(PodView p) {
    if (p == null || !p.exists()) {
      return "pod deleted";
    }
    return p.terminating() ? "pod being deleted" : "pod " + p.phase();
  }
}
