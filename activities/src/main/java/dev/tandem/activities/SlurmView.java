package dev.tandem.activities;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmUnavailableException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One worker's view of Slurm's nodes and jobs, shared by every drain wait, so that what a poll
 * costs follows what changed in Slurm, not how many nodes are draining (issue 14;
 * docs/architecture.md, "Shared Slurm view").
 *
 * <ol>
 *   <li>Readers ask through {@link SingleFlight}: a read with slack {@code s} takes the last
 *       refresh if it began after the ask − s, else waits for (or runs) one. All readers together
 *       cause at most one refresh per {@code s} plus the refreshes strict readers ({@code s} = 0)
 *       ask for.
 *   <li>A refresh lists the nodes, then the jobs, each incrementally ({@code update_time} of the
 *       previous listing: an unchanged answer is one small response and the view keeps what it
 *       had). A changed answer is Slurm's whole current set, which replaces the old one.
 *   <li>The first refresh, and one every {@code full} after, lists everything without {@code
 *       update_time}, so that a wrong "unchanged" can never persist longer than {@code full}. A
 *       full listing answered "unchanged" means nothing is known: the refresh fails.
 *   <li>A refresh that fails changes nothing (neither the view nor the {@code update_time} it lists
 *       from next) and fails its readers (fail closed: never an empty "no jobs"); the next reader
 *       refreshes again.
 *   <li>Nodes are listed before jobs so that a node shown drained in a snapshot took no new job
 *       after the job listing began: that listing shows every job that can still be on it ({@link
 *       SlurmActivitiesImpl#jobsOnNode}).
 * </ol>
 */
public final class SlurmView {
  /** How old a snapshot a drain wait on a drained node may use: well below its poll interval. */
  public static final Duration FRESH = Duration.ofMillis(500);

  /** How often a refresh lists everything, whatever {@code update_time} says. */
  public static final Duration FULL = Duration.ofSeconds(60);

  /** A refresh's result: what Slurm showed in listings begun at or after {@code began}. */
  public record Snapshot(Instant began, Map<String, SlurmNode> nodes, List<SlurmJob> jobs) {}

  private final SlurmClient slurm;
  private final Duration full;
  private final SingleFlight<Snapshot> flight;
  private final AtomicLong requests = new AtomicLong();
  // Touched only by the refresh, which SingleFlight runs one at a time.
  private Snapshot last;
  private Instant fullAt;
  private Instant nodesSince;
  private Instant jobsSince;

  public SlurmView(SlurmClient slurm, Clock clock, Duration full) {
    this.slurm = slurm;
    this.full = full;
    this.flight = new SingleFlight<>(clock, this::refresh);
  }

  public SlurmView(SlurmClient slurm, Clock clock) {
    this(slurm, clock, FULL);
  }

  /** A snapshot from a refresh begun after now − {@code slack}; throws if it could not be made. */
  public Snapshot read(Duration slack) {
    return flight.get(slack);
  }

  /** How many refreshes ran (tests, figures). */
  public long refreshes() {
    return flight.loads();
  }

  /** How many listing requests the refreshes sent (tests, figures). */
  public long requests() {
    return requests.get();
  }

  private Snapshot refresh(Instant began) {
    boolean whole = last == null || Duration.between(fullAt, began).compareTo(full) >= 0;
    requests.incrementAndGet();
    Listing<SlurmNode> n = slurm.listNodes(whole ? null : nodesSince);
    requests.incrementAndGet();
    Listing<SlurmJob> j = slurm.listJobs(whole ? null : jobsSince);
    if (whole && !(n.changed() && j.changed())) {
      throw new SlurmUnavailableException(
          "Slurm answered a full listing with \"unchanged\"; its nodes and jobs are unknown");
    }
    Map<String, SlurmNode> nodes = last == null ? Map.of() : last.nodes();
    if (n.changed()) {
      Map<String, SlurmNode> m = new LinkedHashMap<>();
      for (SlurmNode x : n.items()) {
        m.put(x.name(), x);
      }
      nodes = Map.copyOf(m);
    }
    List<SlurmJob> jobs = j.changed() ? j.items() : last.jobs();
    Snapshot s = new Snapshot(began, nodes, jobs);
    // Only a whole refresh moves fullAt; only a successful one moves anything (step 4).
    last = s;
    nodesSince = n.updateTime();
    jobsSince = j.updateTime();
    if (whole) {
      fullAt = began;
    }
    return s;
  }
}
