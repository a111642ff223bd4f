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
        j.state(),
        j.stateReason(),
        j.nodeList(),
        j.restartCount(),
        observedAt);
  }
}
