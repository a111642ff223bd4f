package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.temporal.workflow.Workflow;
import java.util.function.LongConsumer;

/**
 * The wait for a pod being deleted (a gang: its members being evicted or deleted) before its job is
 * released rather than cancelled (no {@code KillWait} after the pod stops), kept in the workflow's
 * state so that it survives continue-as-new:
 *
 * <ol>
 *   <li>The first pass that finds the pod being deleted with its job live starts the wait and says
 *       so once (timeline {@code awaiting-stop}).
 *   <li>Until the limit (the grace period plus the margin) has passed, the workflow waits for news;
 *       the job stays held, so the pod keeps its resources while it may still run.
 *   <li>Then the pod is read once more (a lost signal), and the caller decides: released if it has
 *       stopped, else cancelled (Slurm's KillWait then covers it).
 * </ol>
 */
@JsonIgnoreProperties(ignoreUnknown = true)
final class StopWait {
  /** When the wait began, workflow time (0: not yet). */
  long sinceMillis;

  /** The pod(s) were read once more when the wait ended. */
  boolean reread;

  /**
   * Seconds left to wait, or 0 when the wait is over (after {@code reread} has run once). {@code
   * started} runs on the first call, with the limit.
   */
  long secondsLeft(long limitSeconds, LongConsumer started, Runnable reread) {
    long now = Workflow.currentTimeMillis();
    if (sinceMillis == 0) {
      sinceMillis = now;
      started.accept(limitSeconds);
    }
    long left = sinceMillis + limitSeconds * 1000 - now;
    if (left > 0) {
      return (left + 999) / 1000;
    }
    if (!this.reread) {
      this.reread = true;
      reread.run();
    }
    return 0;
  }
}
