package dev.tandem.watchers;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.watchers.SlurmJobTracker.Tracked;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cancels placeholder jobs that no workflow will ever own, so Slurm does not hold nodes for pods
 * that are gone (a pod deleted while no watcher ran, a workflow terminated by hand, a submit whose
 * answer was lost after the pod went away).
 *
 * <ol>
 *   <li>Nothing is decided while the routes are not known (the pod watcher has not listed, or its
 *       informer stopped): an empty cache says nothing about the pods. Every suspicion is dropped
 *       then, so the count starts again once the cache is trustworthy.
 *   <li>Ended jobs (PREEMPTED, COMPLETED, CANCELLED, ...) hold nothing and are left alone, and so
 *       are jobs being stopped (COMPLETING: a cancel or a preemption already reached them, and a
 *       pod's placeholder ignores SIGTERM until Slurm kills it after KillWait). Any other state,
 *       unknown ones included, may hold nodes.
 *   <li>A job is suspect on a poll when its tag routes nowhere (no cached pod with that uid; for a
 *       gang tag, no member pod of that group left), or when its owner answered the last signal
 *       with "not running" (the workflow ended; none will start for a placeholder).
 *   <li>A suspect is cancelled only once it was suspect on at least {@link #MIN_POLLS} consecutive
 *       polls AND for at least the minimum age (default 10 s): a pod just created, or an informer
 *       event still on its way, is never mistaken for an orphan. A poll on which the job is not
 *       suspect clears the count.
 *   <li>Cancel (idempotent in every adapter), log at WARN, count {@code
 *       tandem_orphan_jobs_cancelled_total}; a job once cancelled is not cancelled again while it
 *       is still listed (it may show COMPLETING for a while). A failed cancel is retried on the
 *       next poll.
 * </ol>
 */
final class OrphanJobs {
  private static final Logger log = LoggerFactory.getLogger(OrphanJobs.class);

  /** Consecutive suspect polls before a job is cancelled. */
  static final int MIN_POLLS = 2;

  /** Default minimum time a job is suspect before it is cancelled. */
  static final Duration DEFAULT_MIN_AGE = Duration.ofSeconds(10);

  private record Suspect(Instant since, int polls) {}

  private final SlurmClient slurm;
  private final WatcherMetrics metrics;
  private final Duration minAge;
  private Map<Long, Suspect> suspects = new HashMap<>();
  private final Set<Long> cancelled = new HashSet<>();

  OrphanJobs(SlurmClient slurm, WatcherMetrics metrics, Duration minAge) {
    this.slurm = slurm;
    this.metrics = metrics;
    this.minAge = minAge;
  }

  /** One pass over the jobs of the last listing. */
  void sweep(List<Tracked> jobs, JobRoutes routes, Set<Long> ownerNotRunning, Instant now) {
    Set<Long> listed = new HashSet<>();
    jobs.forEach(t -> listed.add(t.view().id()));
    cancelled.retainAll(listed);
    if (!routes.routesKnown()) {
      suspects.clear();
      return;
    }
    Map<Long, Suspect> next = new HashMap<>();
    for (Tracked t : jobs) {
      long id = t.view().id();
      if (t.over() || cancelled.contains(id)) {
        continue;
      }
      Optional<String> owner = routes.workflowIdForTag(t.tag());
      String why =
          owner.isEmpty()
              ? "no pod claims tag " + t.tag()
              : ownerNotRunning.contains(id) ? "workflow " + owner.get() + " is not running" : null;
      if (why == null) {
        continue;
      }
      Suspect before = suspects.get(id);
      Suspect s =
          before == null ? new Suspect(now, 1) : new Suspect(before.since(), before.polls() + 1);
      if (s.polls() >= MIN_POLLS && Duration.between(s.since(), now).compareTo(minAge) >= 0) {
        if (cancel(t, why, owner.isEmpty() ? "no-owner" : "owner-not-running", s, now)) {
          continue;
        }
      }
      next.put(id, s);
    }
    suspects = next;
  }

  private boolean cancel(Tracked t, String why, String reason, Suspect s, Instant now) {
    long id = t.view().id();
    try {
      slurm.cancel(id, null);
    } catch (RuntimeException e) {
      log.warn("cannot cancel orphaned placeholder job {} (will retry): {}", id, e.toString());
      metrics.error("orphan-cancel");
      return false;
    }
    cancelled.add(id);
    metrics.orphanJobCancelled(reason);
    log.warn(
        "cancelled orphaned placeholder job {} ({}, state {}): {} for {}s over {} polls",
        id,
        t.view().name(),
        t.view().state(),
        why,
        Duration.between(s.since(), now).toSeconds(),
        s.polls());
    return true;
  }
}
