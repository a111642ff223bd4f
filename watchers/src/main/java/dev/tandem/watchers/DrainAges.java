package dev.tandem.watchers;

import dev.tandem.workflows.model.SlurmNodeView;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Since when each of Tandem's Slurm nodes has been draining: drain set and jobs still running on it
 * ({@code allocated}, {@code mixed} or completing). Kept by the Slurm poller from what it lists,
 * read by the metrics {@code tandem_slurm_draining_nodes} and {@code
 * tandem_slurm_drain_oldest_seconds}, on which the chart's "drain stuck" alert fires. A drain that
 * waits for a long job is expected (docs/concepts.md); one that waits longer than the operator's
 * threshold is worth a look. Ages count from the first listing that showed the node draining, so a
 * new leader starts them again (the alert's threshold is hours; a failover resets at most that).
 */
final class DrainAges {
  private final Map<String, Instant> since = new ConcurrentHashMap<>();
  private final Clock clock;

  DrainAges(Clock clock) {
    this.clock = clock;
  }

  /** The node's latest view; {@code now} is when it was listed. */
  void observed(SlurmNodeView v, Instant now) {
    if (draining(v)) {
      since.putIfAbsent(v.name(), now);
    } else {
      since.remove(v.name());
    }
  }

  /** The node left Slurm, or is not Tandem's any more. */
  void gone(String node) {
    since.remove(node);
  }

  int count() {
    return since.size();
  }

  /** Seconds the longest-draining node has been draining; 0 when none drains. */
  double oldestSeconds() {
    Instant now = clock.instant();
    return since.values().stream()
        .min(Instant::compareTo)
        .map(t -> Math.max(0, Duration.between(t, now).toMillis() / 1000.0))
        .orElse(0.0);
  }

  static boolean draining(SlurmNodeView v) {
    if (!v.known() || !v.drainFlag()) {
      return false;
    }
    return "allocated".equals(v.state())
        || "mixed".equals(v.state())
        || v.flags().contains("COMPLETING");
  }
}
