package dev.tandem.e2e;

import dev.tandem.slurm.SlurmNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * One SIGKILL of the worker and what followed.
 *
 * @param number 1, 2, ... within a run
 * @param trigger why now: {@code activity #45}, {@code moment: first tandem:update drain}, {@code
 *     scenario: e2e-1 draining with its job}
 * @param at when the worker was killed
 * @param pid the worker killed
 * @param cumulative activity attempts started by every worker of the run so far (the killed one's
 *     count as last scraped)
 * @param justStarted the latest activity types started before the kill, oldest first
 * @param inFlight activity attempts the killed worker had started and not finished (their retries
 *     wait for the start-to-close timeout)
 * @param phases the node workflows' phases as last queried (best effort: the age says how old)
 * @param slurm the NodeSet's Slurm nodes as last polled ({@code name state+FLAGS [reason]})
 * @param readyMs from the kill until the new worker's {@code /readyz} answered
 * @param progressMs from the kill until the new worker started its first activity (-1: none within
 *     the limit)
 */
record KillPoint(
    int number,
    String trigger,
    Instant at,
    long pid,
    long cumulative,
    List<String> justStarted,
    long inFlight,
    String phases,
    String slurm,
    long readyMs,
    long progressMs) {

  String describe() {
    return String.format(
        "kill %2d at activity %4d (%s): just started %s, %d in flight; ready %.1fs, progress %s;"
            + " phases %s; Slurm %s",
        number,
        cumulative,
        trigger,
        justStarted,
        inFlight,
        readyMs / 1000.0,
        progressMs < 0 ? "none" : String.format("%.1fs", progressMs / 1000.0),
        phases,
        slurm);
  }

  /** The NodeSet's Slurm nodes ({@code prefix}*) as {@code name state+FLAGS [reason]}, by name. */
  static String slurmText(Map<String, SlurmNode> nodes, String prefix) {
    StringJoiner j = new StringJoiner(", ");
    for (SlurmNode n : new TreeMap<>(nodes).values()) {
      if (n.name().startsWith(prefix)) {
        StringBuilder b = new StringBuilder(n.name()).append(' ').append(n.state());
        n.flags().stream().sorted().forEach(f -> b.append('+').append(f));
        if (n.reason() != null && !n.reason().isBlank()) {
          b.append(" [").append(n.reason()).append(']');
        }
        j.add(b);
      }
    }
    return j.toString();
  }
}
