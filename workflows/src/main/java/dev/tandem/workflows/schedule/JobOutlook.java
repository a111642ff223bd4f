package dev.tandem.workflows.schedule;

import dev.tandem.workflows.model.SlurmJobView;
import java.util.Set;

/** What a placeholder job's Slurm state means for its pod. */
enum JobOutlook {
  /** Queued: wait. */
  WAITING,
  /** Running: bind, or keep the pod. */
  RUNNING,
  /** Slurm took the resources back (preempted, requeued, suspended): evict. */
  PREEMPTED,
  /** Ended for good (cancelled, timed out, failed, completed, gone): evict. */
  ENDED,
  /** A state this code does not know, or no view: neither wait nor act (fail closed). */
  UNKNOWN;

  private static final Set<String> TAKEN_BACK =
      Set.of("PREEMPTED", "SUSPENDED", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED");

  private static final Set<String> ENDED_STATES =
      Set.of(
          "COMPLETED",
          "COMPLETING",
          "CANCELLED",
          "FAILED",
          "TIMEOUT",
          "NODE_FAIL",
          "OUT_OF_MEMORY",
          "BOOT_FAIL",
          "DEADLINE",
          "REVOKED",
          "SPECIAL_EXIT",
          SlurmJobView.GONE);

  /**
   * The outlook of {@code job}. A job back in the queue after it ran ({@code hasRun}, or a restart
   * count above zero) was requeued, which on a placeholder submitted without requeue only
   * preemption does: its pod must go.
   */
  static JobOutlook of(SlurmJobView job, boolean hasRun) {
    if (job == null || job.state() == null) {
      return UNKNOWN;
    }
    String st = job.state();
    if (st.equals("PENDING") || st.equals("CONFIGURING")) {
      return hasRun || job.restartCount() > 0 ? PREEMPTED : WAITING;
    }
    if (st.equals("RUNNING")) {
      return RUNNING;
    }
    if (TAKEN_BACK.contains(st)) {
      return PREEMPTED;
    }
    return ENDED_STATES.contains(st) ? ENDED : UNKNOWN;
  }

  /**
   * Slurm is done with the job for good: it holds nothing and will never run again (an ended state,
   * or PREEMPTED, which Slurm gives a job it ended for a preemptor). Anything else may still hold
   * or take resources, and is cancelled when its pod goes.
   */
  static boolean finished(SlurmJobView job) {
    return job != null
        && job.state() != null
        && (ENDED_STATES.contains(job.state()) || job.state().equals("PREEMPTED"));
  }

  /** {@code NODE_FAIL} to {@code NodeFail}: a condition reason. */
  static String camel(String state) {
    StringBuilder b = new StringBuilder();
    for (String part : state.toLowerCase(java.util.Locale.ROOT).split("_")) {
      if (!part.isEmpty()) {
        b.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
      }
    }
    return b.toString();
  }
}
