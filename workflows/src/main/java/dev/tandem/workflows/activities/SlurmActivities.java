package dev.tandem.workflows.activities;

import dev.tandem.workflows.model.NodeJobs;
import dev.tandem.workflows.model.SlurmNodeView;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * Slurm side of the node lifecycle, through slurmrestd. Implemented in {@code activities}.
 *
 * <p>Fail closed: when Slurm cannot be read the call fails (and is retried), it never guesses
 * "idle" or "drained". Slurm refusals that retrying cannot fix are thrown as non-retryable
 * application failures of type {@link #REJECTED} with Slurm's own message.
 */
@ActivityInterface(namePrefix = "Slurm")
public interface SlurmActivities {

  /** Failure type for requests Slurm refuses for good. */
  String REJECTED = "SlurmRejected";

  /** The node; {@code known=false} if Slurm has no such node. */
  @ActivityMethod
  SlurmNodeView getNode(String name);

  /**
   * Drains the node with a Tandem reason ({@code tandem:<cause>: ...}) unless it is already
   * drained: an administrator's reason is never replaced, a different Tandem reason is replaced.
   * Returns the node afterwards.
   */
  @ActivityMethod
  SlurmNodeView drain(String name, String reason);

  /**
   * Clears the DRAIN flag if, and only if, the current reason is Tandem's. Returns the node
   * afterwards.
   */
  @ActivityMethod
  SlurmNodeView undrain(String name);

  /** Jobs that hold resources on the node, from the job list. */
  @ActivityMethod
  NodeJobs jobsOnNode(String name);

  /** Marks the node DOWN with a Tandem reason (used when a drain timeout says Force). */
  @ActivityMethod
  SlurmNodeView forceDown(String name, String reason);

  /**
   * Removes the node record where Slurm allows it; returns false when this Slurm cannot (the node
   * then simply stays down/future).
   */
  @ActivityMethod
  boolean removeNode(String name);
}
