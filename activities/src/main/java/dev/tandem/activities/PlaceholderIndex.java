package dev.tandem.activities;

import dev.tandem.slurm.PlaceholderJob;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tandem's placeholder jobs by tag, as one worker's scheduling activities see them: kept by job
 * listings shared by every activity, so that finding a pod's job costs no job listing of its own. A
 * listing per call is what starved slurm-bridge's scheduler (a whole job list per pod); here 200
 * pods submitted at once share a handful of listings (docs/scheduling.md, "Scale").
 *
 * <ol>
 *   <li>A caller asking at time T needs a listing that <em>started</em> after T − {@code fresh} (a
 *       listing shows every job submitted before it started). If the last listing did, it uses the
 *       index as it is.
 *   <li>Otherwise it lists jobs changed since the last listing ({@code update_time}: slurmrestd
 *       answers "unchanged" cheaply), all of them on first use and every {@code full} (which drops
 *       jobs Slurm purged after {@code MinJobAge}, but never one added after that listing began). A
 *       job's newest view replaces the old one.
 *   <li>One caller lists at a time ({@link SingleFlight}, the rule every shared Slurm listing of
 *       the worker follows); the others wait for it and then check step 1 against their own T. A
 *       listing slower than {@code fresh} therefore serves every caller that arrived before it
 *       started, and the callers that arrived during it share the next one: at most two listings
 *       per caller, never one each. (Were freshness counted from when the turn came free, every
 *       caller waiting behind a listing slower than {@code fresh} would list again, one after the
 *       other, and a burst of submits would trickle.) A failed listing fails the callers that asked
 *       before it began; later callers list again.
 *   <li>A job this worker submits is added at once ({@link #put}), without waiting for a listing in
 *       progress; a job another worker (or a lost answer) submitted shows in the next listing. A
 *       retried submit comes at least a retry interval (1 s) after the failed one, longer than
 *       {@code fresh}, so its listing started after the job it must find was submitted: a retry
 *       never submits a second job.
 * </ol>
 */
final class PlaceholderIndex {
  /** How old the index may be when used; below Temporal's first retry interval (1 s). */
  static final Duration FRESH = Duration.ofMillis(500);

  /** How often a full listing replaces the index. */
  static final Duration FULL = Duration.ofSeconds(60);

  /** A job and when this index last learnt of it (a put, or the start of a listing). */
  private record Entry(PlaceholderJob job, Instant seen) {}

  private final SlurmClient slurm;
  private final Clock clock;
  private final Duration fresh;
  private final Duration full;
  private final Map<Long, Entry> byId = new ConcurrentHashMap<>();
  private final SingleFlight<Instant> listing;
  // Touched only by the listing, which SingleFlight runs one at a time.
  private Instant fullAt;
  private Instant since;

  PlaceholderIndex(SlurmClient slurm, Clock clock, Duration fresh, Duration full) {
    this.slurm = slurm;
    this.clock = clock;
    this.fresh = fresh;
    this.full = full;
    this.listing = new SingleFlight<>(clock, this::refresh);
  }

  /** Every job tagged {@code tag} (any state), from a listing begun at most {@code fresh} ago. */
  List<PlaceholderJob> find(String tag) {
    listing.get(fresh);
    return known(tag);
  }

  /**
   * Every job tagged {@code tag} that this index knows now (jobs this worker submitted, and the
   * last listings'), without listing: for a submit that no other worker can have made before.
   */
  List<PlaceholderJob> known(String tag) {
    List<PlaceholderJob> out = new ArrayList<>();
    for (Entry e : byId.values()) {
      if (e.job().podUid().equals(tag)) {
        out.add(e.job());
      }
    }
    return out;
  }

  /** A job just submitted or read by id: known at once, before the next listing. */
  void put(PlaceholderJob job) {
    byId.put(job.jobId(), new Entry(job, clock.instant()));
  }

  /** How many listings this index made (for tests and figures). */
  long listings() {
    return listing.loads();
  }

  /** One listing begun at {@code start}, merged into the index; run by {@link #listing}. */
  private Instant refresh(Instant start) {
    boolean whole = fullAt == null || Duration.between(fullAt, start).compareTo(full) >= 0;
    Listing<PlaceholderJob> l = slurm.listPlaceholderJobs(whole ? null : since);
    Set<Long> listed = new HashSet<>();
    if (l.changed()) {
      for (PlaceholderJob j : l.items()) {
        listed.add(j.jobId());
        // A put during the listing may hold a newer view than the listing's: keep the newer.
        byId.merge(
            j.jobId(),
            new Entry(j, start),
            (old, listedNow) -> old.seen().isAfter(start) ? old : listedNow);
      }
    }
    if (whole) {
      // Purged by Slurm: not listed, and known from before this listing began.
      byId.entrySet()
          .removeIf(e -> !listed.contains(e.getKey()) && !e.getValue().seen().isAfter(start));
      fullAt = start;
    }
    since = l.updateTime();
    return start;
  }
}
