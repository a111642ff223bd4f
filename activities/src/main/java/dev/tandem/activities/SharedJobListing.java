package dev.tandem.activities;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import java.time.Clock;
import java.time.Instant;

/**
 * One full job listing shared by every drain wait of a worker that asks at about the same time,
 * instead of one listing per draining node per poll (a rolling update drains many nodes at once; on
 * Slurm 22.05 each listing carries every job).
 *
 * <ol>
 *   <li>A caller asking at time T needs a listing that <em>began after</em> T: it then shows every
 *       job that could run on a node whose drain the caller saw set before asking. That is exactly
 *       what a listing of its own would give it, so sharing changes no answer.
 *   <li>One listing runs at a time. A caller that finds the last listing begun after its T takes
 *       it; otherwise it lists itself. Callers that asked while a listing ran share the next one,
 *       so a burst of N callers costs at most two listings, not N.
 *   <li>A listing that failed is that failure for every caller that asked before it began (they all
 *       would have met the same outage), and is never cached for later callers.
 * </ol>
 */
final class SharedJobListing {
  private final SlurmClient slurm;
  private final Clock clock;
  private final Object lock = new Object();
  private Listing<SlurmJob> last;
  private RuntimeException lastFailure;
  private Instant lastStart;
  private long listings;

  SharedJobListing(SlurmClient slurm, Clock clock) {
    this.slurm = slurm;
    this.clock = clock;
  }

  /** A full listing of every job, begun after this call. */
  Listing<SlurmJob> all() {
    Instant asked = clock.instant();
    synchronized (lock) {
      if (lastStart == null || !lastStart.isAfter(asked)) {
        lastStart = clock.instant();
        listings++;
        try {
          last = slurm.listJobs(null);
          lastFailure = null;
        } catch (RuntimeException e) {
          last = null;
          lastFailure = e;
        }
      }
      if (lastFailure != null) {
        throw lastFailure;
      }
      return last;
    }
  }

  /** How many listings were made (tests, figures). */
  long listings() {
    synchronized (lock) {
      return listings;
    }
  }
}
