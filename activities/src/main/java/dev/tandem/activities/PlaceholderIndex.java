package dev.tandem.activities;

import dev.tandem.slurm.PlaceholderJob;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tandem's placeholder jobs by tag, as one worker's scheduling activities see them: kept by job
 * listings shared by every activity, so that finding a pod's job costs no job listing of its own. A
 * listing per call is what starved slurm-bridge's scheduler (a whole job list per pod); here 200
 * pods submitted at once share a handful of listings (docs/scheduling.md, "Scale").
 *
 * <ol>
 *   <li>A caller that finds the index younger than {@code fresh} uses it as it is.
 *   <li>Otherwise it lists jobs changed since the last listing ({@code update_time}: slurmrestd
 *       answers "unchanged" cheaply), all of them on first use and every {@code full} (which drops
 *       jobs Slurm purged after {@code MinJobAge}). A job's newest view replaces the old one.
 *   <li>Callers hold the lock while one of them lists: those that waited find a fresh index, so
 *       concurrent activities share one listing.
 *   <li>A job this worker submits is added at once ({@link #put}); a job another worker (or a lost
 *       answer) submitted shows in the next listing. A retried submit comes at least a retry
 *       interval (1 s) after the failed one, longer than {@code fresh}, so its listing is younger
 *       than the job it must find: a retry never submits a second job.
 * </ol>
 */
final class PlaceholderIndex {
  /** How old the index may be when used; below Temporal's first retry interval (1 s). */
  static final Duration FRESH = Duration.ofMillis(500);

  /** How often a full listing replaces the index. */
  static final Duration FULL = Duration.ofSeconds(60);

  private final SlurmClient slurm;
  private final Clock clock;
  private final Duration fresh;
  private final Duration full;
  private final Map<Long, PlaceholderJob> byId = new HashMap<>();
  private Instant listedAt;
  private Instant fullAt;
  private Instant since;
  private long listings;

  PlaceholderIndex(SlurmClient slurm, Clock clock, Duration fresh, Duration full) {
    this.slurm = slurm;
    this.clock = clock;
    this.fresh = fresh;
    this.full = full;
  }

  /** Every job tagged {@code tag} (any state), from an index at most {@code fresh} old. */
  synchronized List<PlaceholderJob> find(String tag) {
    refresh();
    List<PlaceholderJob> out = new ArrayList<>();
    for (PlaceholderJob j : byId.values()) {
      if (j.podUid().equals(tag)) {
        out.add(j);
      }
    }
    return out;
  }

  /** A job just submitted or read by id: known at once, before the next listing. */
  synchronized void put(PlaceholderJob job) {
    byId.put(job.jobId(), job);
  }

  /** How many listings this index made (for tests and figures). */
  synchronized long listings() {
    return listings;
  }

  private void refresh() {
    Instant now = clock.instant();
    if (listedAt != null && Duration.between(listedAt, now).compareTo(fresh) < 0) {
      return;
    }
    boolean whole = fullAt == null || Duration.between(fullAt, now).compareTo(full) >= 0;
    Listing<PlaceholderJob> l = slurm.listPlaceholderJobs(whole ? null : since);
    listings++;
    if (whole) {
      byId.clear();
      fullAt = now;
    }
    if (l.changed()) {
      for (PlaceholderJob j : l.items()) {
        byId.put(j.jobId(), j);
      }
    }
    since = l.updateTime();
    listedAt = now;
  }
}
