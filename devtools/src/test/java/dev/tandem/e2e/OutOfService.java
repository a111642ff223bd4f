package dev.tandem.e2e;

import dev.tandem.slurm.SlurmNode;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Whether a node is out of service on one poll, as {@link InvariantMonitor} counts it against
 * {@code maxUnavailable}: its pod is not running (absent, pending, being deleted), or Slurm does
 * not list it, or shows it FUTURE, down, drained (for any reason, an administrator's included) or
 * not responding.
 *
 * <p>One exception: Slurm 22.05 flags a node NOT_RESPONDING for about a second after every UNDRAIN
 * or RESUME, while it pings the slurmd again (docs/concepts.md). A node whose only sign is
 * NOT_RESPONDING within {@link #PING_GRACE} of a poll that saw it out for another reason is coming
 * back, not going out. A slurmd silent for longer, or NOT_RESPONDING out of the blue, counts.
 */
final class OutOfService {
  static final Duration PING_GRACE = Duration.ofSeconds(5);

  private final Duration pingGrace;
  private final Map<String, Instant> lastOutOtherwise = new HashMap<>();

  OutOfService(Duration pingGrace) {
    this.pingGrace = pingGrace;
  }

  /**
   * @param pod the pod (and Slurm node) name
   * @param podRunning the pod exists, is not being deleted and runs
   * @param n Slurm's node, null if not listed
   * @param now the poll's time (polls come in time order)
   */
  synchronized boolean out(String pod, boolean podRunning, SlurmNode n, Instant now) {
    if (!podRunning || n == null || n.future() || n.down() || n.drainFlag()) {
      lastOutOtherwise.put(pod, now);
      return true;
    }
    if (!n.notResponding()) {
      return false;
    }
    Instant before = lastOutOtherwise.get(pod);
    return before == null || Duration.between(before, now).compareTo(pingGrace) > 0;
  }
}
