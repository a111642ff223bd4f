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

    /**
     * Why {@code job}'s pod goes: preempted (a requeue reads {@code Requeued}) or ended; {@code
     * nodes} are the Slurm nodes it held.
     */
    static Ending of(SlurmJobView job, boolean preempted, List<String> nodes) {
      String st = job.state();
      String message = what(job, preempted, nodes) + ": the pod is evicted";
      return new Ending(
          preempted ? ScheduleConditions.SLURM_PREEMPTED : ScheduleConditions.SLURM_JOB_ENDED,
          preempted && st.equals("PENDING") ? "Requeued" : JobOutlook.camel(st),
          message);
    }

    /**
     * {@code Slurm preempted job 12 on n3 (state PREEMPTED)}, or {@code Slurm job 12 on n3 ended
     * (state TIMEOUT, reason TimeLimit)}. Slurm's reason {@code None} says nothing and is left out;
     * who preempted the job, Slurm does not say here ({@link PreemptorSearch}).
     */
    static String what(SlurmJobView job, boolean preempted, List<String> nodes) {
      String reason = job.stateReason();
      String why =
          reason == null || reason.isBlank() || reason.equals("None") ? "" : ", reason " + reason;
      String on = nodes.isEmpty() ? "" : " on " + String.join(",", nodes);
      return (preempted
              ? "Slurm preempted job " + job.id() + on
              : "Slurm job " + job.id() + on + " ended")
          + " (state "
          + job.state()
          + why
          + ")";
    }
  }

  /** After a preemption: the search for the job that preempted the pod. */
  PreemptorSearch preemptor = new PreemptorSearch();

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
