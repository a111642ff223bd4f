package dev.tandem.activities;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * One load at a time, shared by every caller it can serve: the rule behind the worker's shared
 * Slurm listings ({@link SlurmView}), so that N callers asking together cost one listing, not N.
 *
 * <ol>
 *   <li>A caller asking at time T with slack {@code s} takes the last load if it <em>began</em>
 *       after T − s: a load shows everything that happened before it began, so with {@code s} zero
 *       the caller gets exactly what a load of its own would have shown it.
 *   <li>Otherwise it waits its turn and, holding it, checks step 1 again: a load that ran while it
 *       waited may serve it. Else it loads itself. Callers that arrive during a load share the next
 *       one, so a burst of callers costs at most two loads, never one each, however slow a load is
 *       (freshness is measured from the ask, not from when the turn came free).
 *   <li>A failed load is that failure for the callers that asked before it began (they would have
 *       met the same outage), and is never served to a caller that asked after: that one loads
 *       again. Nothing is ever answered from a failed load (fail closed).
 * </ol>
 *
 * @param <T> what a load produces; the loader receives the instant the load began
 */
final class SingleFlight<T> {
  private record Outcome<T>(Instant began, T value, RuntimeException failure) {}

  private final Clock clock;
  private final Function<Instant, T> load;
  private final Object turn = new Object();
  private final AtomicLong loads = new AtomicLong();
  private volatile Outcome<T> last;

  SingleFlight(Clock clock, Function<Instant, T> load) {
    this.clock = clock;
    this.load = load;
  }

  /** The value of a load begun after now − {@code slack} (step 1), loading if none did. */
  T get(Duration slack) {
    Instant asked = clock.instant();
    Outcome<T> o = last;
    if (!serves(o, asked, slack)) {
      synchronized (turn) {
        o = last;
        if (!serves(o, asked, slack)) {
          Instant began = clock.instant();
          loads.incrementAndGet();
          try {
            o = new Outcome<>(began, load.apply(began), null);
          } catch (RuntimeException e) {
            o = new Outcome<>(began, null, e);
          }
          last = o;
        }
      }
    }
    if (o.failure() != null) {
      throw o.failure();
    }
    return o.value();
  }

  /** How many loads ran (tests, figures). */
  long loads() {
    return loads.get();
  }

  private static boolean serves(Outcome<?> o, Instant asked, Duration slack) {
    if (o == null) {
      return false;
    }
    if (o.failure() != null) {
      return o.began().isAfter(asked); // step 3: only for callers that asked before it began
    }
    return o.began().isAfter(asked.minus(slack));
  }
}
