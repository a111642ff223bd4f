package dev.tandem.workflows.schedule;

import static dev.tandem.workflows.schedule.SchedulePhase.DONE;

import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.support.Observations;
import dev.tandem.workflows.support.Step;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The two ends of a pod's placeholder job: the submit and the cancel (phase CANCELLING), and the
 * cancelling of a second job with the pod's tag (a stray).
 *
 * <ol>
 *   <li>A submit looks for jobs with the pod's tag first, so that a repeated submit makes no second
 *       job; that look waits for a listing of Slurm's jobs. The run's first submit, made in a task
 *       that started within {@link #FIRST_TASK_WINDOW} of the run, cannot repeat an earlier one and
 *       skips the listing; its job is then the pod's only one ({@link PodScheduleState#soleJob}).
 *   <li>Any other live job seen with the pod's tag (from the Slurm watcher, or held from before the
 *       submit answered) is a stray: it is cancelled before the phase is handled, and the pod keeps
 *       its own job.
 *   <li>The pod's end cancels its sole job alone; otherwise every job with the tag, found by a
 *       listing (a submit whose answer was lost left a job the workflow has no id for). A pod that
 *       has stopped (gone, succeeded, failed) has its jobs released instead: ended at once, not
 *       after Slurm's {@code KillWait}. A pod still being deleted is waited for first, at most its
 *       grace period and the margin (step 3a).
 * </ol>
 */
final class PlaceholderCare {
  /**
   * How soon after the run's start a task may make the first submit without the listing. A task
   * that a crashed worker held (perhaps after its submit reached Slurm) is tried again only after
   * the task timeout, and the attempt it replaces started no sooner than the run, so a task that
   * started sooner than the timeout after the run is the run's first try: no earlier submit can
   * exist. Both times are the server's (the run's start and the task's start), so 1 s is margin
   * enough; under a backlog many first tasks start seconds after the run. A task that failed (not
   * timed out) and was retried at once on another worker could still repeat a submit; that second
   * job is cancelled on sight (step 2), and the orphan sweep cancels any left once the pod is gone.
   */
  static final Duration FIRST_TASK_WINDOW =
      PodScheduleWorkflow.TASK_TIMEOUT.minus(Duration.ofSeconds(1));

  private final PodScheduleInput in;
  private final PodScheduleState s;
  private final ScheduleEffects fx;
  private final Tuning t;

  /** A submit was asked for in this run, so the next one cannot be the first. */
  private boolean submitTried;

  PlaceholderCare(PodScheduleInput in, PodScheduleState s, ScheduleEffects fx) {
    this.in = in;
    this.s = s;
    this.fx = fx;
    this.t = in.tuning();
  }

  /** Step 1: submits and takes the answer into the state; null if it is not known. */
  SlurmJobView submit(PlaceholderJob placeholder) {
    boolean first = firstSubmit();
    submitTried = true;
    SlurmJobView job = first ? fx.submitFirst(placeholder) : fx.submit(placeholder);
    if (job == null) {
      return null;
    }
    s.jobId = job.id();
    s.soleJob = first;
    if (s.job != null && s.job.id() != job.id() && !JobOutlook.finished(s.job)) {
      s.strays.add(s.job.id()); // the watcher showed another job with the tag before the answer
    }
    // The watcher may have seen the job (running, even) while the submit was answering.
    s.job = Observations.newerJob(s.job, job);
    return job;
  }

  private boolean firstSubmit() {
    // A job with the tag already seen (s.job before any answer) means an earlier submit exists.
    if (in.state() != null || submitTried || s.job != null) {
      return false;
    }
    long sinceStart =
        Workflow.currentTimeMillis() - Workflow.getInfo().getRunStartedTimestampMillis();
    return sinceStart < FIRST_TASK_WINDOW.toMillis();
  }

  /** Step 2; a stray that cannot be cancelled now waits for the next pass. */
  void cancelStrays() {
    for (Iterator<Long> it = s.strays.iterator(); it.hasNext(); ) {
      long id = it.next();
      if (id != s.jobId && !fx.cancelJob(id, "a second job with the pod's tag")) {
        return;
      }
      it.remove();
      if (id != s.jobId) {
        fx.timeline(
            "stray-cancelled",
            "Slurm job "
                + id
                + " also carried the pod's tag (a submit repeated after a crash); the pod keeps"
                + " job "
                + s.jobId);
      }
    }
  }

  /** Step 3 (phase CANCELLING). */
  Step<SchedulePhase> cancelling() {
    Step<SchedulePhase> wait = awaitStop();
    if (wait != null) {
      return wait;
    }
    boolean release = ScheduleEffects.podStopped(s.pod);
    if (s.soleJob && s.jobId != 0) {
      boolean live = !JobOutlook.finished(s.job);
      if (live && !fx.cancelJob(s.jobId, s.cancelReason, release)) {
        return Step.stay(s.phase, t.pollSeconds());
      }
      return Step.to(
          DONE,
          "job-cancelled",
          live ? ended(release, List.of(s.jobId), "the pod") : "no Slurm job left");
    }
    List<SlurmJobView> jobs = fx.tagged();
    if (jobs == null) {
      return Step.stay(s.phase, t.pollSeconds());
    }
    List<Long> cancelled = new ArrayList<>();
    for (SlurmJobView j : jobs) {
      if (!JobOutlook.finished(j)) {
        if (!fx.cancelJob(j.id(), s.cancelReason, release)) {
          return Step.stay(s.phase, t.pollSeconds());
        }
        cancelled.add(j.id());
      }
    }
    return Step.to(
        DONE,
        "job-cancelled",
        cancelled.isEmpty() ? "no Slurm job left" : ended(release, cancelled, "the pod"));
  }

  /**
   * Step 3a: a pod being deleted may run until its grace period ends, so its live job is held, not
   * cancelled, until the pod is gone (or has ended); step 3 then releases it. The wait lasts at
   * most the grace period plus the margin; then the pod is read once more, and if it is still there
   * its job is cancelled, which keeps the nodes for KillWait more. Null: no wait.
   */
  private Step<SchedulePhase> awaitStop() {
    if (s.pod == null
        || !s.pod.exists()
        || !s.pod.terminating()
        || s.pod.failed()
        || s.jobId == 0
        || JobOutlook.finished(s.job)) {
      return null;
    }
    long left =
        s.stopWait.secondsLeft(
            in.pod().graceSeconds() + in.config().graceMarginSeconds(),
            limit ->
                fx.timeline(
                    "awaiting-stop",
                    "the pod is being deleted: Slurm job "
                        + s.jobId
                        + " is held until it has stopped (at most "
                        + limit
                        + " s), then released"),
            fx::refreshPod);
    return left > 0 ? Step.stay(s.phase, left) : null;
  }

  /** The timeline's words for jobs ended because {@code who} ended (shared with a gang's). */
  static String ended(boolean released, List<Long> ids, String who) {
    return released
        ? "released Slurm job(s) " + ids + " at once: " + who + " had stopped"
        : "cancelled Slurm job(s) " + ids;
  }
}
