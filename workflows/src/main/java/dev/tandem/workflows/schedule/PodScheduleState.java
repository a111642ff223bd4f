package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything a {@link PodScheduleWorkflow} knows, in one serializable object: the whole memory
 * carried across continue-as-new. Mutated only by the workflow thread.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public final class PodScheduleState {

  /**
   * Why the pod is being evicted: the condition to set on it ({@code SlurmPreempted} or {@code
   * SlurmJobEnded}), its reason (Slurm's state in CamelCase) and message.
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Ending(String conditionType, String reason, String message) {

    /** Why {@code job}'s pod goes: preempted (a requeue reads {@code Requeued}) or ended. */
    static Ending of(SlurmJobView job, boolean preempted) {
      String st = job.state();
      String message = what(job, preempted) + ": the pod is evicted";
      return new Ending(
          preempted ? ScheduleConditions.SLURM_PREEMPTED : ScheduleConditions.SLURM_JOB_ENDED,
          preempted && st.equals("PENDING") ? "Requeued" : JobOutlook.camel(st),
          message);
    }

    /**
     * {@code Slurm preempted job 12 (state PREEMPTED, reason ...)}, or {@code Slurm job 12 ended
     * (...)}.
     */
    static String what(SlurmJobView job, boolean preempted) {
      String why =
          job.stateReason() == null || job.stateReason().isBlank()
              ? ""
              : ", reason " + job.stateReason();
      return (preempted ? "Slurm preempted job " + job.id() : "Slurm job " + job.id() + " ended")
          + " (state "
          + job.state()
          + why
          + ")";
    }
  }

  SchedulePhase phase = SchedulePhase.VALIDATING;
  long phaseSinceMillis;

  /** The placeholder job id, 0 before it is submitted. */
  long jobId;

  /** Last view of the job (from an activity or the Slurm watcher), or null. */
  SlurmJobView job;

  /** Last view of the pod, or null before the first. */
  PodView pod;

  /**
   * The job was submitted by the workflow's first submit ({@link PlaceholderCare}): no other job
   * carries the pod's tag except one a crash repeated, which is cancelled on sight ({@link
   * #strays}); the pod's end then cancels {@link #jobId} alone, without listing Slurm's jobs.
   */
  boolean soleJob;

  /** Other live jobs seen with the pod's tag (a submit repeated after a crash): cancelled next. */
  List<Long> strays = new ArrayList<>();

  String slurmNode;
  String k8sNode;

  /** Why the pod is evicted (phase EVICTING), or null. */
  Ending ending;

  /**
   * The pod's {@code SlurmScheduled=False} ({@code JobPending}) condition was written for the job
   * waiting in Slurm's queue for {@link SchedulePhases#QUEUED_NOTICE_SECONDS}.
   */
  boolean queuedNoticed;

  /** The ending's condition and event were written. */
  boolean endingAnnounced;

  /** Why the job is cancelled (phase CANCELLING), or null. */
  String cancelReason;

  /** The wait, in phase CANCELLING, for a pod being deleted before its job is released. */
  StopWait stopWait = new StopWait();

  /** Why the pod is invalid (phase INVALID). */
  List<String> invalid = new ArrayList<>();

  /** What keeps the current phase from progressing, or null. */
  String problem;

  List<ScheduleTimelineEntry> timeline = new ArrayList<>();

  public SchedulePhase phase() {
    return phase;
  }
}
