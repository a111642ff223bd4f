package dev.tandem.workflows.schedule;

/** Pod condition types and reasons of Slurm scheduling (docs/architecture.md, "Names"). */
public final class ScheduleConditions {
  private ScheduleConditions() {}

  /** True once the pod is bound to the node of its running placeholder job. */
  public static final String SLURM_SCHEDULED = "SlurmScheduled";

  /** True when Slurm preempted the placeholder job and the pod is evicted for it. */
  public static final String SLURM_PREEMPTED = "SlurmPreempted";

  /** True when the placeholder job ended otherwise (cancelled, timed out, failed). */
  public static final String SLURM_JOB_ENDED = "SlurmJobEnded";

  /** Reason of {@code SlurmScheduled=False} for a pod that cannot be scheduled as it is. */
  public static final String INVALID_POD = "InvalidPod";

  /** Reason of {@code SlurmScheduled=False} while the job waits in Slurm's queue. */
  public static final String JOB_PENDING = "JobPending";

  /** Reason of {@code SlurmScheduled=True}. */
  public static final String JOB_RUNNING = "JobRunning";

  /** Reason of {@code SlurmScheduled=False} while a gang waits for its other members. */
  public static final String WAITING_FOR_GROUP = "WaitingForGroup";

  /** Reason of {@code SlurmScheduled=False} on the valid members of a gang that cannot run. */
  public static final String GROUP_INVALID = "GroupInvalid";

  /** Reason of {@code SlurmJobEnded} on the members evicted because another member ended. */
  public static final String GROUP_MEMBER_ENDED = "GroupMemberEnded";

  /**
   * Why Slurm keeps {@code job} waiting, as Slurm says it, or null when it says nothing (no view
   * yet, no reason, or {@code None}): the pod's and the gang's queued messages carry it.
   */
  static String queuedReason(dev.tandem.workflows.model.SlurmJobView job) {
    String why = job == null ? null : job.stateReason();
    return why == null || why.isEmpty() || why.equals("None") ? null : why;
  }

  /** The message of {@code SlurmScheduled=True} on a pod bound where its job runs. */
  public static String boundMessage(long jobId, String slurmNode, String k8sNode) {
    return running(jobId, slurmNode) + " (Kubernetes node " + k8sNode + ")";
  }

  /** The message of the {@code Scheduled} event of a pod bound where its job runs. */
  public static String boundEvent(long jobId, String slurmNode, String k8sNode) {
    return "Bound to " + k8sNode + ": " + running(jobId, slurmNode);
  }

  /** Reason of the Normal event of a pod bound where its job runs. */
  public static final String SCHEDULED_EVENT = "Scheduled";

  private static String running(long jobId, String slurmNode) {
    return "Slurm job " + jobId + " on Slurm node " + slurmNode;
  }
}
