package dev.tandem.workflows.schedule;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.support.Observations;
import dev.tandem.workflows.support.Scoped;
import dev.tandem.workflows.support.SearchAttributes;
import dev.tandem.workflows.support.SignalInbox;
import dev.tandem.workflows.support.Step;
import io.temporal.common.VersioningBehavior;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import io.temporal.workflow.WorkflowVersioningBehavior;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Schedules one pod through Slurm with a placeholder job (docs/architecture.md, "Pods through
 * Slurm").
 *
 * <ol>
 *   <li>Validating: {@link PodValidator}. An invalid pod gets {@code SlurmScheduled=False} (reason
 *       {@code InvalidPod}, the messages) and a Warning event, and no job: INVALID, final. Fixing
 *       it means a new pod, hence a new workflow.
 *   <li>Submitting: submit the placeholder job ({@link PlaceholderJobs}); the activity first looks
 *       for a job with the pod's uid tag, so a retry never makes two. A pod gone before that goes
 *       to cancelling. Slurm refusing the job for good (e.g. an unknown partition) is an invalid
 *       pod.
 *   <li>Pending: wait for the Slurm watcher's {@code jobObserved} signal. A job still waiting after
 *       {@link SchedulePhases#QUEUED_NOTICE_SECONDS} gets {@code SlurmScheduled=False} (reason
 *       {@code JobPending}) on its pod when the watcher says it still waits (it signals such a job
 *       once, 6 s after it first listed it), or on the resync pass after a re-read of both; one
 *       Slurm starts sooner never does, its bind waits for no condition write, and no timer of this
 *       phase outlives it.
 *   <li>Binding: the job runs: map its Slurm node to the Kubernetes node of that node's slurmd pod,
 *       bind the pod there, set {@code SlurmScheduled=True}. An unknown mapping or a failed bind is
 *       retried on a timer (never a guess).
 *   <li>Running: the pod and the job run together until one of them ends.
 *   <li>Evicting: the job was preempted (requeued, PREEMPTED, suspended) or ended (cancelled, timed
 *       out, failed, gone): set {@code SlurmPreempted} or {@code SlurmJobEnded} with Slurm's state
 *       and reason, record a Warning event, evict the pod (honouring its grace period), cancel what
 *       is left of the job; done.
 *   <li>Cancelling: the pod ended, failed or was deleted (in any phase from submitting on): cancel
 *       every job with the pod's uid tag; done.
 * </ol>
 *
 * <p>The run's first submit skips the listing of Slurm's jobs for the pod's tag, and a second job
 * with the tag is cancelled whenever it is seen ({@link PlaceholderCare}).
 *
 * <p>In pending, binding and running, the pod's end is checked before the job's state, so a pod
 * deleted while its job is preempted is not evicted twice. A job state Tandem does not know changes
 * nothing (fail closed) and is reported as the problem. Signals only update {@link
 * PodScheduleState}; the loop acts. Signals may be lost or duplicated, so each phase re-reads the
 * pod and the job on a timer. The workflow continues as new before its history grows large.
 */
public class PodScheduleWorkflowImpl implements PodScheduleRun {

  private final PodScheduleInput input;
  private final PodScheduleState s;
  private final ScheduleEffects fx;
  private final boolean fresh;
  private boolean dirty;

  @WorkflowInit
  public PodScheduleWorkflowImpl(PodScheduleInput in) {
    this.input = in;
    this.fresh = in.state() == null;
    this.s = fresh ? new PodScheduleState() : in.state();
    if (fresh) {
      s.phaseSinceMillis = Workflow.currentTimeMillis();
    }
    this.fx = new ScheduleEffects(in.pod(), s, in.tuning().timelineLimit());
    SignalInbox.open(PodScheduleWorkflow.class, this, r -> fx.timeline("signal-rejected", r));
  }

  @Override
  // Pinned: an execution finishes on the build that started it (docs/upgrading.md).
  @WorkflowVersioningBehavior(VersioningBehavior.PINNED)
  public SchedulePhase run(PodScheduleInput in) {
    SchedulePhases phases = new SchedulePhases(in, s, fx);
    // Batched: one upsert per workflow task, where it waits or ends (SearchAttributes#flush).
    SearchAttributes sa = new SearchAttributes(in.tuning().searchAttributes(), true);
    sa.set(SearchAttributes.POD, in.pod().ref());
    if (fresh) {
      fx.timeline("started", "pod " + in.pod().ref() + " uid " + in.pod().uid());
    }
    // A continued run carries views that may be old: read the world before deciding.
    phases.refresh = !fresh;
    while (true) {
      sa.set(SearchAttributes.PHASE, s.phase.label());
      if (s.jobId != 0) {
        sa.set(SearchAttributes.JOB_ID, Long.toString(s.jobId));
      }
      if (s.k8sNode != null) {
        sa.set(SearchAttributes.K8S_NODE, s.k8sNode);
      }
      dirty = false;
      Step<SchedulePhase> step = phases.handle();
      phases.refresh = false;
      if (step.next() != s.phase) {
        s.phase = step.next();
        s.phaseSinceMillis = Workflow.currentTimeMillis();
        s.problem = null; // a problem belongs to the phase that had it
        fx.timeline(step.event(), step.detail());
        if (s.phase.terminal()) {
          awaitTheWatchersWord();
          sa.set(SearchAttributes.PHASE, s.phase.label());
          sa.flush();
          Workflow.setCurrentDetails(details());
          return s.phase;
        }
        continue;
      }
      sa.flush();
      Workflow.setCurrentDetails(details());
      // A signal's news counts even when the timer fired too: a task that started late must not
      // take the watcher's news for a silent timeout and re-read what the signal already said.
      boolean woken = Scoped.await(Duration.ofSeconds(step.waitSeconds()), () -> dirty);
      phases.refresh = !woken;
      maybeContinueAsNew();
    }
  }

  public void jobObserved(SlurmJobView job) {
    if (s.jobId == 0) {
      // Submitted but not answered yet: a job with our tag is ours. Held until the answer, which
      // keeps it if it is further along (Observations.newerJob).
      if (PlaceholderJob.nameFor(input.pod().uid()).equals(job.name())) {
        s.job = job;
        dirty = true;
      }
      return;
    }
    if (job.id() != s.jobId) {
      // Another live job with the pod's tag (a submit repeated after a crash): cancelled next.
      if (PlaceholderJob.nameFor(input.pod().uid()).equals(job.name())
          && !JobOutlook.finished(job)
          && !s.strays.contains(job.id())) {
        s.strays.add(job.id());
        dirty = true;
      }
      return;
    }
    // By progress, not by clocks: the watcher stamps a listing when its poll began, which can be
    // before a submit's read of the same job that finished earlier but shows it less far along.
    s.job = Observations.signalledJob(s.job, job);
    dirty = true;
  }

  public void podObserved(PodView pod) {
    if (!input.pod().name().equals(pod.name())) {
      return;
    }
    boolean other = pod.exists() && pod.uid() != null && !pod.uid().equals(input.pod().uid());
    PodView heard = other ? PodView.absent(pod.name()) : pod;
    s.pod = Observations.newerPod(s.pod, heard);
    if (ScheduleEffects.podDone(heard)) {
      fx.podEndUnheard = false;
    }
    dirty = true;
  }

  @Override
  public PodScheduleStatus status() {
    return new PodScheduleStatus(
        input.pod().ref(),
        input.pod().uid(),
        s.phase,
        Instant.ofEpochMilli(s.phaseSinceMillis),
        s.jobId,
        s.job == null ? null : s.job.state(),
        PlaceholderJobs.qos(input.pod(), input.config()),
        s.slurmNode,
        s.k8sNode,
        s.problem,
        List.copyOf(s.invalid),
        List.copyOf(s.timeline));
  }

  /** The readable summary shown by the Temporal UI and {@code tandem history}. */
  private String details() {
    StringBuilder b = new StringBuilder(input.pod().ref()).append(": ").append(s.phase.label());
    if (s.jobId != 0) {
      b.append(", Slurm job ").append(s.jobId);
      if (s.job != null) {
        b.append(" ").append(s.job.state());
      }
    }
    if (s.k8sNode != null) {
      b.append(", on ").append(s.k8sNode).append(" (Slurm node ").append(s.slurmNode).append(")");
    }
    if (s.problem != null) {
      b.append("; problem: ").append(s.problem);
    }
    return b.toString();
  }

  /**
   * The pod's end came from one of this workflow's calls (its eviction, its bind's or a read's
   * answer), so the watcher's signal of the same change is on its way. A completion it lands on is
   * refused by the server ({@code UnhandledCommand}) and the task replayed, so the run waits for
   * that signal first, at most a poll interval.
   */
  private void awaitTheWatchersWord() {
    if (s.phase != SchedulePhase.DONE || !fx.podEndUnheard) {
      return;
    }
    Scoped.await(Duration.ofSeconds(input.tuning().pollSeconds()), () -> !fx.podEndUnheard);
  }

  private void maybeContinueAsNew() {
    long events = Workflow.getInfo().getHistoryLength();
    if (events < input.tuning().maxHistoryEvents()
        && !Workflow.getInfo().isContinueAsNewSuggested()) {
      return;
    }
    fx.timeline("continued-as-new", "after " + events + " history events");
    PodScheduleWorkflow next = Workflow.newContinueAsNewStub(PodScheduleWorkflow.class);
    next.run(new PodScheduleInput(input.pod(), input.config(), input.tuning(), s));
  }

  /** {@code schedule/<ns>/<pod>/<uid>} of {@code pod}. */
  public static String workflowId(PodRequest pod) {
    return Names.scheduleWorkflowId(pod.namespace(), pod.name(), pod.uid());
  }
}
