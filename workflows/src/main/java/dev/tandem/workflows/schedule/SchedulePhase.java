package dev.tandem.workflows.schedule;

import java.util.Locale;

/** Where a pod's scheduling stands; see {@link PodScheduleWorkflowImpl} for the algorithm. */
public enum SchedulePhase {
  /** Checking the pod; no Slurm job yet. */
  VALIDATING,
  /** The pod cannot be scheduled as it is; it has a condition and an event saying why. Final. */
  INVALID,
  /** Submitting the placeholder job (found again by the pod uid if it exists). */
  SUBMITTING,
  /** The job waits in Slurm's queue. */
  PENDING,
  /** Slurm started the job; binding the pod to the node that hosts the job's Slurm node. */
  BINDING,
  /** The pod is bound and its job runs. */
  RUNNING,
  /** The job was preempted or ended: the pod is being evicted. */
  EVICTING,
  /** The pod ended or was deleted: the job is being cancelled. */
  CANCELLING,
  /** Nothing left to do: no job, and the pod is gone or going. Final. */
  DONE;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean terminal() {
    return this == INVALID || this == DONE;
  }
}
