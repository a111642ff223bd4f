package dev.tandem.watchers;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmViews;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.SlurmJobView;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The job half of the {@link SlurmPoller}: Tandem's placeholder jobs (their comment is the owning
 * workflow's id) and {@code jobObserved} signals to that workflow when one changes or is purged.
 * Same memory rules as the nodes: a view is remembered when read, a signal given up is marked
 * undelivered and sent again on the next changed listing, and a purged job whose end was not heard
 * keeps a tombstone until it is. Used from the poller thread only (the undelivered marks also from
 * the coalescer's threads).
 */
final class SlurmJobTracker {
  private final SlurmClient slurm;
  private final Coalescer coalescer;
  private final WorkflowSignals signals;
  private final WatcherMetrics metrics;
  private final Map<Long, SlurmJobView> jobs = new HashMap<>();
  private final Map<Long, SlurmJobView> undelivered = new ConcurrentHashMap<>();
  private Instant since;

  SlurmJobTracker(
      SlurmClient slurm, Coalescer coalescer, WorkflowSignals signals, WatcherMetrics metrics) {
    this.slurm = slurm;
    this.coalescer = coalescer;
    this.signals = signals;
    this.metrics = metrics;
  }

  /** Lists jobs (all of them when {@code full}) and signals what changed. */
  void poll(boolean full, Instant now) {
    Listing<SlurmJob> lj = slurm.listJobs(full ? null : since);
    if (!lj.changed()) {
      return;
    }
    Map<Long, SlurmJobView> seen = new HashMap<>();
    for (SlurmJob j : lj.items()) {
      if (!ownedByWorkflow(j.comment())) {
        continue;
      }
      SlurmJobView v = SlurmViews.job(j, now);
      seen.put(j.id(), v);
      SlurmJobView before = jobs.put(j.id(), v);
      boolean lost = undelivered.remove(j.id()) != null;
      if (full || lost || before == null || !sameJob(before, v)) {
        metrics.event("slurm", "job");
        send(v);
      }
    }
    for (Long gone : List.copyOf(jobs.keySet())) {
      if (!seen.containsKey(gone)) {
        undelivered.remove(gone);
        send(purged(jobs.remove(gone), now));
      }
    }
    for (Long lost : List.copyOf(undelivered.keySet())) {
      SlurmJobView last = seen.containsKey(lost) ? null : undelivered.remove(lost);
      if (last != null) {
        send(SlurmJobView.GONE.equals(last.state()) ? last : purged(last, now)); // end not heard
      }
    }
    since = lj.updateTime();
  }

  private void send(SlurmJobView v) {
    coalescer.submit(
        "job:" + v.id(),
        () -> {
          boolean ok = signals.workflow(v.comment(), Names.SIGNAL_JOB_OBSERVED, v);
          undelivered.remove(v.id(), v);
          metrics.signal(Names.SIGNAL_JOB_OBSERVED, ok ? "sent" : "not-running");
        },
        () -> undelivered.put(v.id(), v));
  }

  private static SlurmJobView purged(SlurmJobView last, Instant now) {
    return new SlurmJobView(
        last.id(),
        last.name(),
        last.comment(),
        SlurmJobView.GONE,
        "purged",
        last.nodes(),
        last.restartCount(),
        now);
  }

  /** Tandem's placeholder jobs carry their owner's workflow id as the comment. */
  static boolean ownedByWorkflow(String comment) {
    return comment != null && comment.startsWith("schedule/");
  }

  static boolean sameJob(SlurmJobView a, SlurmJobView b) {
    return Objects.equals(a.state(), b.state())
        && Objects.equals(a.stateReason(), b.stateReason())
        && a.nodes().equals(b.nodes())
        && a.restartCount() == b.restartCount();
  }
}
