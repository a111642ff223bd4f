package dev.tandem.workflows.schedule;

import java.util.Locale;

/** Where a gang's scheduling stands; see {@link PodGroupWorkflowImpl} for the algorithm. */
public enum GroupPhase {
  /** Fewer valid members than the group size are here; no Slurm job yet. No timeout. */
  GATHERING,
  /**
   * The members cannot run as a group (a member is invalid, sizes or resources disagree, too many
   * members, Slurm refused the job); each member's condition says why. Not final: the members are
   * checked again whenever they change, since the group's workflow id outlives any one pod.
   */
  INVALID,
  /** All members are here: submitting the group's one placeholder job. */
  SUBMITTING,
  /** The job waits in Slurm's queue. */
  PENDING,
  /** Slurm started the job: mapping all its nodes, then binding every member. */
  BINDING,
  /** Every member is bound and the job runs. */
  RUNNING,
  /** The job or a member ended: evicting the members, then cancelling what Slurm still holds. */
  ENDING,
  /** Nothing left to do. Final. */
  DONE;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean terminal() {
    return this == DONE;
  }

  /** A job may exist: from submitting on, the members are fixed. */
  public boolean committed() {
    return this != GATHERING && this != INVALID;
  }
}
