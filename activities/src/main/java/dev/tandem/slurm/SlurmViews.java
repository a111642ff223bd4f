package dev.tandem.slurm;

import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.model.SlurmNodeView;
import java.time.Instant;

/** Turns the client's records into the smaller views workflows keep in their histories. */
public final class SlurmViews {
  private SlurmViews() {}

  public static SlurmNodeView node(SlurmNode n, Instant observedAt) {
    return new SlurmNodeView(
        n.name(),
        true,
        n.state(),
        n.flags(),
        n.reason(),
        n.reasonSetBy(),
        n.slurmdStartTime(),
        observedAt);
  }

  public static SlurmJobView job(SlurmJob j, Instant observedAt) {
    return new SlurmJobView(
        j.id(),
        j.name(),
        j.comment(),
        viewState(j),
        j.stateReason(),
        j.nodeList(),
        j.restartCount(),
        observedAt);
  }

  /**
   * The state a workflow acts on. Slurm 22.05 reports a preempted job that is still being stopped
   * as {@code COMPLETING} (with its {@code preempt_time} set) until {@code KillWait} has passed,
   * and only then as {@code PREEMPTED}; a pod placeholder ignores SIGTERM, so that window is the
   * whole of {@code KillWait}. The pod must be evicted at its start, and as preempted, not as a job
   * that merely completed: such a job is shown as {@code PREEMPTED} already.
   */
  static String viewState(SlurmJob j) {
    boolean completing = "COMPLETING".equals(j.state()) || j.stateFlags().contains("COMPLETING");
    return completing && j.preemptTime() != null ? "PREEMPTED" : j.state();
  }
}
