package dev.tandem.slurm;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A placeholder job (tagged by {@link PlaceholderTag}) as the pod scheduling flow needs it.
 *
 * @param podUid the uid the job is tagged with
 * @param jobId Slurm job id
 * @param state Slurm's upper-case base state ({@code PENDING}, {@code RUNNING}, {@code PREEMPTED},
 *     {@code CANCELLED}, {@code TIMEOUT}, {@code FAILED}, {@code COMPLETED}, {@code NODE_FAIL},
 *     ...)
 * @param stateReason Slurm's reason ({@code None}, {@code Resources}, {@code BeginTime}, ...)
 * @param nodes allocated node names, expanded from Slurm's hostlist (empty while pending)
 * @param restartCount how often Slurm requeued the job
 * @param phase what the state means for the pod, see {@link Phase}
 * @param startTime when the job (last) started, or null
 * @param preemptTime when Slurm preempted the job, or null
 */
public record PlaceholderJob(
    String podUid,
    long jobId,
    String state,
    String stateReason,
    List<String> nodes,
    int restartCount,
    Phase phase,
    Instant startTime,
    Instant preemptTime) {

  public PlaceholderJob {
    nodes = List.copyOf(nodes);
  }

  /** What a placeholder's Slurm state means for its pod. */
  public enum Phase {
    /** Pending, never started: the pod waits. */
    WAITING,
    /** Running on {@link #nodes()}: the pod may be bound there. */
    RUNNING,
    /**
     * Was running and Slurm put it back in the queue (pending with a restart count, or a REQUEUED
     * state): it no longer holds its nodes, so a bound pod must go.
     */
    REQUEUED,
    /** Suspended by Slurm: holds memory but not CPUs; the pod must not keep running. */
    SUSPENDED,
    /** Being stopped (COMPLETING): resources are being released. */
    ENDING,
    /** Ended because a higher-priority job preempted it. */
    PREEMPTED,
    /** Ended for another reason (cancelled, timed out, failed, node failure, completed, ...). */
    ENDED,
    /** A state this client does not know: may hold nodes, not known to have ended (fail closed). */
    UNKNOWN
  }

  private static final Set<String> ENDED_STATES =
      Set.of(
          "COMPLETED",
          "CANCELLED",
          "FAILED",
          "TIMEOUT",
          "NODE_FAIL",
          "BOOT_FAIL",
          "DEADLINE",
          "OUT_OF_MEMORY",
          "REVOKED",
          "SPECIAL_EXIT");

  private static final Set<String> REQUEUED_STATES =
      Set.of("REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED");

  /** The placeholder view of {@code job}, or empty when it carries no Tandem tag. */
  public static Optional<PlaceholderJob> of(SlurmJob job) {
    return PlaceholderTag.uidOf(job)
        .map(
            uid ->
                new PlaceholderJob(
                    uid,
                    job.id(),
                    job.state(),
                    job.stateReason(),
                    job.nodeList(),
                    job.restartCount(),
                    phaseOf(job),
                    job.startTime(),
                    job.preemptTime()));
  }

  /**
   * The phase of a job. Order matters: a COMPLETING flag beats the base state (a PREEMPTED job is
   * still releasing its nodes then); a pending job that has restarted was requeued; a state this
   * client does not know is {@link Phase#UNKNOWN}, never ended.
   */
  static Phase phaseOf(SlurmJob job) {
    String s = job.state();
    if ("COMPLETING".equals(s) || job.stateFlags().contains("COMPLETING")) {
      return Phase.ENDING;
    }
    if (REQUEUED_STATES.contains(s) || job.stateFlags().contains("REQUEUED")) {
      return Phase.REQUEUED;
    }
    if ("PENDING".equals(s)) {
      return job.restartCount() > 0 ? Phase.REQUEUED : Phase.WAITING;
    }
    if ("RUNNING".equals(s)) {
      // RUNNING always names its nodes; without them the answer cannot be acted on.
      return job.nodeList().isEmpty() ? Phase.UNKNOWN : Phase.RUNNING;
    }
    if ("SUSPENDED".equals(s)) {
      return Phase.SUSPENDED;
    }
    if ("PREEMPTED".equals(s)) {
      return Phase.PREEMPTED;
    }
    if (ENDED_STATES.contains(s)) {
      return Phase.ENDED;
    }
    return Phase.UNKNOWN;
  }

  /** The job will not run again and holds nothing. */
  public boolean over() {
    return phase == Phase.PREEMPTED || phase == Phase.ENDED;
  }
}
