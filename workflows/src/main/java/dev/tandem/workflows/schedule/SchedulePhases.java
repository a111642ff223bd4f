package dev.tandem.workflows.schedule;

import static dev.tandem.workflows.schedule.ScheduleConditions.INVALID_POD;
import static dev.tandem.workflows.schedule.ScheduleConditions.JOB_PENDING;
import static dev.tandem.workflows.schedule.ScheduleConditions.SLURM_SCHEDULED;
import static dev.tandem.workflows.schedule.SchedulePhase.BINDING;
import static dev.tandem.workflows.schedule.SchedulePhase.CANCELLING;
import static dev.tandem.workflows.schedule.SchedulePhase.DONE;
import static dev.tandem.workflows.schedule.SchedulePhase.EVICTING;
import static dev.tandem.workflows.schedule.SchedulePhase.INVALID;
import static dev.tandem.workflows.schedule.SchedulePhase.PENDING;
import static dev.tandem.workflows.schedule.SchedulePhase.RUNNING;
import static dev.tandem.workflows.schedule.SchedulePhase.SUBMITTING;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.support.Step;
import java.util.ArrayList;
import java.util.List;

/** One handler per {@link SchedulePhase}; see {@link PodScheduleWorkflowImpl} for the algorithm. */
final class SchedulePhases {
  /**
   * How long a placeholder job waits in Slurm's queue before its pod is told so ({@code
   * SlurmScheduled=False}, {@code JobPending}). Slurm starts a job it can start at once within
   * about two seconds of the submit even on a busy machine (docs/benchmarks.md): those pods go
   * straight to {@code SlurmScheduled=True}.
   */
  static final long QUEUED_NOTICE_SECONDS = 5;

  private final PodScheduleInput in;
  private final PodScheduleState s;
  private final ScheduleEffects fx;
  private final Tuning t;
  private final PlaceholderCare care;
  private final ScheduleEnding ending;

  /** Re-read Kubernetes and Slurm before deciding (a timer fired: a signal may have been lost). */
  boolean refresh;

  SchedulePhases(PodScheduleInput in, PodScheduleState s, ScheduleEffects fx) {
    this.in = in;
    this.s = s;
    this.fx = fx;
    this.t = in.tuning();
    this.care = new PlaceholderCare(in, s, fx);
    this.ending = new ScheduleEnding(in, s, fx);
  }

  Step<SchedulePhase> handle() {
    if (!s.strays.isEmpty() && !s.phase.terminal()) {
      care.cancelStrays();
    }
    return switch (s.phase) {
      case VALIDATING -> validating();
      case SUBMITTING -> submitting();
      case PENDING, BINDING, RUNNING -> scheduled();
      case EVICTING -> ending.evicting(refresh);
      case CANCELLING -> care.cancelling();
      case INVALID, DONE -> Step.stay(s.phase, 0);
    };
  }

  private Step<SchedulePhase> validating() {
    List<String> problems = new ArrayList<>(PodValidator.validate(in.pod(), in.config()));
    String size = in.pod().annotation(ScheduleAnnotations.GROUP_SIZE);
    if (problems.isEmpty() && size != null && Integer.parseInt(size) > 1) {
      // Gang members go to their group's workflow; Tandem's watcher never starts this one for a
      // member, but a hand-started one must not take a gang's job pod by pod.
      String group = in.pod().annotation(ScheduleAnnotations.POD_GROUP);
      problems.add(
          "pod group "
              + group
              + " (tandem.dev/group-size "
              + size
              + ") is scheduled as one gang by workflow "
              + Names.podGroupWorkflowId(in.pod().namespace(), group)
              + ", never pod by pod; this workflow was not started by Tandem's pod watcher:"
              + " terminate it and let the watcher start the gang's");
    }
    if (problems.isEmpty()) {
      return Step.to(SUBMITTING, "validated", "the pod can be scheduled");
    }
    return invalid(problems);
  }

  private Step<SchedulePhase> invalid(List<String> problems) {
    String message = String.join("; ", problems);
    if (!fx.condition(SLURM_SCHEDULED, Condition.FALSE, INVALID_POD, message)) {
      return Step.stay(s.phase, t.pollSeconds());
    }
    fx.event(true, INVALID_POD, message);
    s.invalid = problems;
    return Step.to(INVALID, "invalid", message);
  }

  private Step<SchedulePhase> submitting() {
    if (refresh) {
      fx.refreshPod();
    }
    if (ScheduleEffects.podDone(s.pod)) {
      return ending.cancel(ScheduleEnding.describe(s.pod) + " before its job was submitted");
    }
    SlurmJobView job = care.submit(PlaceholderJobs.from(in.pod(), in.config()));
    if (job == null) {
      if (fx.slurmRefused != null) {
        return invalid(List.of("Slurm refused the placeholder job: " + fx.slurmRefused));
      }
      return Step.stay(s.phase, t.pollSeconds());
    }
    return Step.to(PENDING, "submitted", "Slurm job " + job.id());
  }

  /** PENDING, BINDING and RUNNING: the pod's end or the job's state decides. */
  private Step<SchedulePhase> scheduled() {
    if (refresh) {
      fx.refreshPod();
      fx.refreshJob();
    }
    JobOutlook o = JobOutlook.of(s.job, s.phase != PENDING);
    if (ScheduleEffects.podDone(s.pod)) {
      return ending.cancel(ScheduleEnding.describe(s.pod), o);
    }
    switch (o) {
      case PREEMPTED, ENDED -> {
        return ending.evict(o);
      }
      case UNKNOWN -> {
        if (s.job != null) {
          s.problem =
              "Slurm job " + s.jobId + " is in state " + s.job.state() + ", unknown to Tandem";
        }
        return Step.stay(s.phase, t.pollSeconds());
      }
      case WAITING -> {
        return waiting();
      }
      case RUNNING -> {
        // handled below
      }
    }
    if (s.phase == PENDING) {
      return Step.to(BINDING, "job-started", "Slurm job " + s.jobId + " on " + s.job.nodes());
    }
    return s.phase == BINDING ? bind() : Step.stay(s.phase, t.resyncSeconds());
  }

  /**
   * The job waits in Slurm's queue: tell the pod once it has waited {@link #QUEUED_NOTICE_SECONDS}
   * in PENDING. No timer of this phase waits for the notice: the watcher signals a job still
   * waiting 6 s after it first listed it, so the pass that finds the notice due has a fresh view;
   * one woken by the resync timer re-reads the pod and the job first, so a job that started
   * meanwhile is bound instead. A timer of its own would outlive a job Slurm starts sooner and fire
   * into the pod's last task, whose completion the server would then refuse.
   */
  private Step<SchedulePhase> waiting() {
    // Only PENDING waits: a job back in the queue after BINDING or RUNNING is PREEMPTED
    // (JobOutlook).
    long left = s.phaseSinceMillis + QUEUED_NOTICE_SECONDS * 1000 - fx.now().toEpochMilli();
    if (s.queuedNoticed || left > 0) {
      return Step.stay(s.phase, t.resyncSeconds());
    }
    s.queuedNoticed = fx.condition(SLURM_SCHEDULED, Condition.FALSE, JOB_PENDING, queuedMessage());
    return Step.stay(s.phase, s.queuedNoticed ? t.resyncSeconds() : t.pollSeconds());
  }

  private String queuedMessage() {
    String why = ScheduleConditions.queuedReason(s.job);
    return "Slurm job " + s.jobId + " queued" + (why == null ? "" : " (" + why + ")");
  }

  private Step<SchedulePhase> bind() {
    if (s.job.nodes().isEmpty()) {
      s.problem = "Slurm job " + s.jobId + " runs but Slurm lists no node for it";
      return Step.stay(s.phase, t.pollSeconds());
    }
    s.slurmNode = s.job.nodes().get(0);
    // Node lookup, bind, condition and event in one call.
    Placement pl = fx.place();
    if (pl != null && pl.k8sNode() == null && s.problem == null) {
      s.problem = "Slurm node " + s.slurmNode + " has no running slurmd pod on a Kubernetes node";
    }
    if (pl == null || pl.k8sNode() == null || pl.pod() == null) {
      return Step.stay(s.phase, t.pollSeconds());
    }
    String k8s = pl.k8sNode();
    PodView p = pl.pod();
    if (ScheduleEffects.podDone(p)) {
      return ending.cancel(ScheduleEnding.describe(p));
    }
    if (!k8s.equals(p.k8sNode())) {
      s.problem = "the pod is on " + p.k8sNode() + ", not on " + k8s + " where its job runs";
      return Step.stay(s.phase, t.pollSeconds());
    }
    s.k8sNode = k8s;
    return Step.to(
        RUNNING, "bound", "to " + k8s + ": Slurm job " + s.jobId + " on Slurm node " + s.slurmNode);
  }
}
