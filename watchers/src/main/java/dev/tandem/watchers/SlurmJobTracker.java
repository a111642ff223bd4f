package dev.tandem.watchers;

import dev.tandem.slurm.PlaceholderJob;
import dev.tandem.slurm.PlaceholderTag;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmViews;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.SlurmJobView;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The job half of the {@link SlurmPoller}: Tandem's placeholder jobs (tagged as {@link
 * PlaceholderTag} says) and {@code jobObserved} signals to the workflow that owns each one ({@link
 * JobRoutes}) when it changes or is purged, and once when it still waits {@link
 * #QUEUED_SIGNAL_AFTER} after it was first listed (its pod is then told it is queued). Same memory
 * rules as the nodes: a view is remembered when read, a signal given up (or one with no owner known
 * yet) is marked undelivered and sent again on the next changed listing, and a purged job whose end
 * was not heard keeps a tombstone until it is. Jobs no workflow will ever own are cancelled by
 * {@link OrphanJobs}. Used from the poller thread only (the undelivered and not-running marks also
 * from the coalescer's threads).
 */
final class SlurmJobTracker {
  /** A placeholder job as last listed. */
  /**
   * @param over ended, or being stopped (COMPLETING: a cancel or preemption already reached it)
   */
  record Tracked(SlurmJobView view, String tag, boolean over) {}

  /** A view whose signal has not been accepted, with the tag that routes it. */
  private record Unsent(String tag, SlurmJobView view) {}

  /**
   * How long a placeholder waits in Slurm's queue, from when this tracker first listed it, before
   * its workflow is told once more, so that it tells its pod the job is queued (the pod workflow's
   * queued notice, due 5 s after its submit). The second more covers a workflow clock a little
   * behind this one; a workflow that still finds the notice not due writes it on its resync pass. A
   * gang's workflow, which tells its members at the submit, takes the signal as any other unchanged
   * view.
   */
  static final Duration QUEUED_SIGNAL_AFTER = Duration.ofSeconds(6);

  private final SlurmClient slurm;
  private final Coalescer coalescer;
  private final WorkflowSignals signals;
  private final WatcherMetrics metrics;
  private final OrphanJobs orphans;
  private final Map<Long, Tracked> jobs = new HashMap<>();
  private final Map<Long, Unsent> undelivered = new ConcurrentHashMap<>();

  /** Jobs whose owner answered its last signal with "no such workflow runs". */
  private final Set<Long> ownerNotRunning = ConcurrentHashMap.newKeySet();

  /** Placeholders listed waiting (PENDING, never started), since when (this tracker's clock). */
  private final Map<Long, Instant> waitingSince = new HashMap<>();

  /** Waiting placeholders already sent for {@link #QUEUED_SIGNAL_AFTER}. */
  private final Set<Long> toldQueued = new HashSet<>();

  private volatile JobRoutes routes = JobRoutes.NONE;
  private volatile DemandFeed demand;
  private Instant since;

  SlurmJobTracker(
      SlurmClient slurm,
      Coalescer coalescer,
      WorkflowSignals signals,
      WatcherMetrics metrics,
      Duration orphanMinAge) {
    this.slurm = slurm;
    this.coalescer = coalescer;
    this.signals = signals;
    this.metrics = metrics;
    this.orphans = new OrphanJobs(slurm, metrics, orphanMinAge);
  }

  /** Where jobs are signalled; until set, nowhere (and no job is ever taken for an orphan). */
  void routes(JobRoutes r) {
    this.routes = r;
  }

  /** Where every listing goes for the autoscaled NodeSets' demand; until set, nowhere. */
  void demand(DemandFeed d) {
    this.demand = d;
  }

  /** Whether a pod waits for its placeholder to start (the poller then lists jobs sooner). */
  boolean podsWaiting() {
    return routes.podsWaiting();
  }

  /**
   * Lists jobs (all of them when {@code full}), signals what changed, feeds the demand, then sweeps
   * orphans.
   */
  void poll(boolean full, Instant now) {
    Listing<SlurmJob> lj = slurm.listJobs(full ? null : since);
    if (lj.changed()) {
      metrics.queue().jobs(lj.items());
      update(lj.items(), full, now);
      since = lj.updateTime();
    }
    DemandFeed d = demand;
    if (d != null) {
      d.polled(lj.changed() ? lj.items() : null, full, now);
    }
    tellStillQueued(now);
    orphans.sweep(List.copyOf(jobs.values()), routes, ownerNotRunning, now);
  }

  private void update(List<SlurmJob> listed, boolean full, Instant now) {
    Map<Long, Tracked> seen = new HashMap<>();
    for (SlurmJob j : listed) {
      Optional<PlaceholderJob> p = PlaceholderJob.of(j);
      if (p.isEmpty()) {
        continue;
      }
      boolean over = p.get().over() || p.get().phase() == PlaceholderJob.Phase.ENDING;
      Tracked t = new Tracked(SlurmViews.job(j, now), p.get().podUid(), over);
      seen.put(j.id(), t);
      Tracked before = jobs.put(j.id(), t);
      boolean lost = undelivered.remove(j.id()) != null;
      if (waiting(t.view())) {
        waitingSince.putIfAbsent(j.id(), now);
      } else {
        waitingSince.remove(j.id());
        toldQueued.remove(j.id());
      }
      // A job first seen waiting is what its submit already answered: no signal (a workflow
      // task per pod saved) unless it still waits later (tellStillQueued); every later change,
      // and each full resync, is sent.
      boolean news = before == null ? !waiting(t.view()) : !sameJob(before.view(), t.view());
      if (full || lost || news) {
        metrics.event("slurm", "job");
        send(t.tag(), t.view());
      }
    }
    for (Long gone : List.copyOf(jobs.keySet())) {
      if (!seen.containsKey(gone)) {
        undelivered.remove(gone);
        ownerNotRunning.remove(gone);
        waitingSince.remove(gone);
        toldQueued.remove(gone);
        Tracked last = jobs.remove(gone);
        send(last.tag(), purged(last.view(), now));
      }
    }
    for (Long lost : List.copyOf(undelivered.keySet())) {
      Unsent last = seen.containsKey(lost) ? null : undelivered.remove(lost);
      if (last != null) { // its end was not heard
        SlurmJobView v = last.view();
        send(last.tag(), SlurmJobView.GONE.equals(v.state()) ? v : purged(v, now));
      }
    }
  }

  /**
   * Sends, once, each placeholder still waiting {@link #QUEUED_SIGNAL_AFTER} after it was first
   * listed: on every poll, whether the listing changed or not (an unchanged one answers 304).
   */
  private void tellStillQueued(Instant now) {
    for (Map.Entry<Long, Instant> w : waitingSince.entrySet()) {
      long id = w.getKey();
      if (now.isBefore(w.getValue().plus(QUEUED_SIGNAL_AFTER)) || !toldQueued.add(id)) {
        continue;
      }
      Tracked t = jobs.get(id);
      metrics.event("slurm", "job");
      send(t.tag(), t.view());
    }
  }

  private void send(String tag, SlurmJobView v) {
    Optional<String> owner = routes.workflowIdForTag(tag);
    if (owner.isEmpty()) {
      // No owner known: try again with the next changed listing; a purged job nobody owns is
      // forgotten (there is no one left to tell).
      if (!SlurmJobView.GONE.equals(v.state())) {
        undelivered.put(v.id(), new Unsent(tag, v));
      }
      return;
    }
    String id = owner.get();
    Unsent unsent = new Unsent(tag, v);
    coalescer.submit(
        "job:" + v.id(),
        () -> {
          boolean ok = signals.workflow(id, Names.SIGNAL_JOB_OBSERVED, v);
          undelivered.remove(v.id(), unsent);
          if (ok) {
            ownerNotRunning.remove(v.id());
          } else if (!SlurmJobView.GONE.equals(v.state())) {
            ownerNotRunning.add(v.id());
          }
          metrics.signal(Names.SIGNAL_JOB_OBSERVED, ok ? "sent" : "not-running");
        },
        () -> undelivered.put(v.id(), unsent));
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

  private static boolean waiting(SlurmJobView v) {
    return "PENDING".equals(v.state()) && v.restartCount() == 0;
  }

  static boolean sameJob(SlurmJobView a, SlurmJobView b) {
    return Objects.equals(a.state(), b.state())
        && Objects.equals(a.stateReason(), b.stateReason())
        && a.nodes().equals(b.nodes())
        && a.restartCount() == b.restartCount();
  }
}
