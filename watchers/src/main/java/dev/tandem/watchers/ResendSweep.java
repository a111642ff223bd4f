package dev.tandem.watchers;

import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Which unchanged views a watcher sends again on a pass: a sweep through the names in order, not a
 * burst of all of them at once (issue 14: the cost at rest must not grow with the fleet).
 *
 * <ol>
 *   <li>Each pass owes {@code names / every} resends, the fractions carried over, so that every
 *       name goes again once in {@code every} passes (one name: on every {@code every}-th pass).
 *   <li>What is owed is capped at {@code max} a pass: above {@code every × max} names the sweep
 *       takes longer ({@code names / max} passes), and a pass never costs more than {@code max}
 *       signals whatever the fleet's size. Sending all at once cost 5,000 signals and workflow
 *       tasks in one minute at 5,000 nodes.
 *   <li>The names taken are the next ones after the last name taken, in order, wrapping; names that
 *       come and go between passes do not stop the sweep.
 * </ol>
 *
 * One caller thread.
 */
final class ResendSweep {
  /** Resends a pass at most, by default. */
  static final int MAX = 20;

  private final int every;
  private final int max;
  private String last = "";
  private long owedParts; // resends owed, in 1 / every of a name: no rounding

  ResendSweep(int every, int max) {
    if (every < 1 || max < 1) {
      throw new IllegalArgumentException("every and max must be >= 1");
    }
    this.every = every;
    this.max = max;
  }

  /** The names this pass resends, out of all the names it saw. */
  Set<String> next(Stream<String> seen) {
    TreeSet<String> names = new TreeSet<>();
    seen.forEach(names::add);
    owedParts = Math.min((long) max * every, owedParts + names.size());
    int count = (int) Math.min(names.size(), owedParts / every);
    owedParts -= (long) count * every;
    Set<String> out = new HashSet<>();
    Iterator<String> it = names.tailSet(last, false).iterator();
    while (out.size() < count) {
      if (!it.hasNext()) {
        it = names.iterator(); // wrap
      }
      String name = it.next();
      out.add(name);
      last = name;
    }
    return out;
  }
}
