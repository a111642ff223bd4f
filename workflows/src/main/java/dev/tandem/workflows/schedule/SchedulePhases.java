package dev.tandem.workflows.schedule;

import static dev.tandem.workflows.schedule.ScheduleConditions.INVALID_POD;
import static dev.tandem.workflows.schedule.ScheduleConditions.JOB_PENDING;
import static dev.tandem.workflows.schedule.ScheduleConditions.JOB_RUNNING;
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
import dev.tandem.workflows.support.Versions;
import java.util.ArrayList;
import java.util.List;

/** One handler per {@link SchedulePhase}; see {@link PodScheduleWorkflowImpl} for the algorithm. */
final class SchedulePhases {
  /**
   * How long a placeholder job waits in Slurm's queue before its pod is told so ({@code
   * SlurmScheduled=False}, {@code JobPending}; {@code Versions.QUEUED_NOTICE}). Slurm starts a job
   * it can start at once within about two seconds of the submit even on a busy machine
   * (docs/benchmarks.md): those pods go straight to {@code SlurmScheduled=True}.
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

  /**
   * A job Slurm ended names the ending even when the pod is gone too (Versions.JOB_ENDING_FIRST).
   */
  boolean jobEndingFirst;

  SchedulePhases(PodScheduleInput in, PodScheduleState s, ScheduleEffects fx) {
    this.in = in;
    this.s = s;
    this.fx = fx;
    this.t = in.tuning();
    this.care = new PlaceholderCare(in, s, fx);
    this.ending = new ScheduleEnding(in, s, fx);
  }

  ScheduleStep handle() {
    if (fx.soleSubmit && !s.strays.isEmpty() && !s.phase.terminal()) {
      care.cancelStrays();
    }
    return switch (s.phase) {
      case VALIDATING -> validating();
      case SUBMITTING -> submitting();
      case PENDING, BINDING, RUNNING -> scheduled();
      case EVICTING -> ending.evicting(refresh);
      case CANCELLING -> care.cancelling();
      case INVALID, DONE -> ScheduleStep.stay(s.phase, 0);
    };
  }

  private ScheduleStep validating() {
    List<String> problems = new ArrayList<>(PodValidator.validate(in.pod(), in.config()));
    String size = in.pod().annotation(ScheduleAnnotations.GROUP_SIZE);
    if (problems.isEmpty() && size != null && Integer.parseInt(size) > 1) {
      // Gang members go to their group's workflow; only a watcher of a Tandem from before gangs
      // starts this workflow for one (a rolling upgrade), and one pod must never take a gang's job.
      String group = in.pod().annotation(ScheduleAnnotations.POD_GROUP);
      problems.add(
          "pod group "
              + group
              + " (tandem.dev/group-size "
              + size
              + ") is scheduled as one gang by workflow "
              + Names.podGroupWorkflowId(in.pod().namespace(), group)
              + ", never pod by pod; this pod's own workflow was started by an older Tandem:"
              + " once every Tandem replica runs this version, delete the pod and create it"
              + " again");
    }
    if (problems.isEmpty()) {
      return ScheduleStep.to(SUBMITTING, "validated", "the pod can be scheduled");
    }
    return invalid(problems);
  }

  private ScheduleStep invalid(List<String> problems) {
    String message = String.join("; ", problems);
    if (!fx.condition(SLURM_SCHEDULED, Condition.FALSE, INVALID_POD, message)) {
      return ScheduleStep.stay(s.phase, t.pollSeconds());
    }
    fx.event(true, INVALID_POD, message);
    s.invalid = problems;
    return ScheduleStep.to(INVALID, "invalid", message);
  }

  private ScheduleStep submitting() {
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
      return ScheduleStep.stay(s.phase, t.pollSeconds());
    }
    if (!fx.queuedNotice) {
      fx.condition(
          SLURM_SCHEDULED, Condition.FALSE, JOB_PENDING, "Slurm job " + job.id() + " queued");
    }
    return ScheduleStep.to(PENDING, "submitted", "Slurm job " + job.id());
  }

  /** PENDING, BINDING and RUNNING: the pod's end or the job's state decides. */
  private ScheduleStep scheduled() {
    if (refresh) {
      fx.refreshPod();
      fx.refreshJob();
    }
    JobOutlook o = JobOutlook.of(s.job, s.phase != PENDING);
    if (ScheduleEffects.podDone(s.pod)) {
      return ending.cancel(ScheduleEnding.describe(s.pod), jobEndingFirst ? o : null);
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
        return ScheduleStep.stay(s.phase, t.pollSeconds());
      }
      case WAITING -> {
        return waiting();
      }
      case RUNNING -> {
        // handled below
      }
    }
    if (s.phase == PENDING) {
      return ScheduleStep.to(
          BINDING, "job-started", "Slurm job " + s.jobId + " on " + s.job.nodes());
    }
    return s.phase == BINDING ? bind() : ScheduleStep.stay(s.phase, t.resyncSeconds());
  }

  /**
   * The job waits in Slurm's queue: tell the pod once it has waited {@link #QUEUED_NOTICE_SECONDS}
   * in PENDING, then wait for the watcher's signal. The pass that finds the notice due is woken by
   * the watcher's signal for a job still waiting ({@code Versions.SIGNALLED_NOTICE}), so its view
   * is fresh; one woken by a timer (the resync, or before that version the notice's own timer)
   * re-reads the pod and the job first, so a job that started meanwhile is bound instead.
   */
  private ScheduleStep waiting() {
    // Only PENDING waits: a job back in the queue after BINDING or RUNNING is PREEMPTED
    // (JobOutlook).
    if (!fx.queuedNotice || s.queuedNoticed) {
      return ScheduleStep.stay(s.phase, t.resyncSeconds());
    }
    long left = s.phaseSinceMillis + QUEUED_NOTICE_SECONDS * 1000 - fx.now().toEpochMilli();
    if (left > 0) {
      if (signalledNotice()) {
        // The watcher signals a job still waiting after 6 s: no timer of ours outlives a job
        // Slurm starts sooner and fires into the pod's last task (Versions.SIGNALLED_NOTICE).
        return ScheduleStep.stay(s.phase, t.resyncSeconds());
      }
      return ScheduleStep.stay(s.phase, Math.min(t.resyncSeconds(), (left + 999) / 1000));
    }
    s.queuedNoticed = fx.condition(SLURM_SCHEDULED, Condition.FALSE, JOB_PENDING, queuedMessage());
    return ScheduleStep.stay(s.phase, s.queuedNoticed ? t.resyncSeconds() : t.pollSeconds());
  }

  /**
   * Asked only where the two rules differ: a pending pass before the notice is due (the first
   * answer holds for the run, so asking again adds nothing).
   */
  private static boolean signalledNotice() {
    return Versions.of(Versions.SIGNALLED_NOTICE) >= 1;
  }

  private String queuedMessage() {
    String why = ScheduleConditions.queuedReason(s.job);
    return "Slurm job " + s.jobId + " queued" + (why == null ? "" : " (" + why + ")");
  }

  private ScheduleStep bind() {
    if (s.job.nodes().isEmpty()) {
      s.problem = "Slurm job " + s.jobId + " runs but Slurm lists no node for it";
      return ScheduleStep.stay(s.phase, t.pollSeconds());
    }
    s.slurmNode = s.job.nodes().get(0);
    if (fx.oneCallBind) {
      // Lookup, bind, condition and event in one call (Versions.ONE_CALL_BIND).
      Placement pl = fx.place();
      if (pl == null) {
        return ScheduleStep.stay(s.phase, t.pollSeconds());
      }
      return pl.k8sNode() == null ? noSlurmdPod() : bound(pl.k8sNode(), pl.pod(), false);
    }
    String k8s = fx.k8sNodeOf(s.slurmNode);
    if (k8s == null) {
      return noSlurmdPod();
    }
    return bound(k8s, fx.bind(k8s), true);
  }

  private ScheduleStep noSlurmdPod() {
    if (s.problem == null) {
      s.problem = "Slurm node " + s.slurmNode + " has no running slurmd pod on a Kubernetes node";
    }
    return ScheduleStep.stay(s.phase, t.pollSeconds());
  }

  /**
   * After the bind to {@code k8s} answered {@code p} (null: unknown). {@code announce}: write the
   * condition and the event here (the placement call wrote them already).
   */
  private ScheduleStep bound(String k8s, PodView p, boolean announce) {
    if (p == null) {
      return ScheduleStep.stay(s.phase, t.pollSeconds());
    }
    if (ScheduleEffects.podDone(p)) {
      return ending.cancel(ScheduleEnding.describe(p));
    }
    if (!k8s.equals(p.k8sNode())) {
      s.problem = "the pod is on " + p.k8sNode() + ", not on " + k8s + " where its job runs";
      return ScheduleStep.stay(s.phase, t.pollSeconds());
    }
    s.k8sNode = k8s;
    if (announce) {
      fx.condition(
          SLURM_SCHEDULED,
          Condition.TRUE,
          JOB_RUNNING,
          ScheduleConditions.boundMessage(s.jobId, s.slurmNode, k8s));
      fx.event(
          false,
          ScheduleConditions.SCHEDULED_EVENT,
          ScheduleConditions.boundEvent(s.jobId, s.slurmNode, k8s));
    }
    return ScheduleStep.to(
        RUNNING, "bound", "to " + k8s + ": Slurm job " + s.jobId + " on Slurm node " + s.slurmNode);
  }
}
