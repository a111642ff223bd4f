package dev.tandem.workflows.model;

/** What happens when a drain takes longer than its timeout. */
public enum TimeoutAction {
  /** Keep waiting for the jobs to end; report the node as stuck. */
  WAIT,
  /** Mark the node DOWN in Slurm (Slurm requeues or kills its jobs) and go on. */
  FORCE
}
