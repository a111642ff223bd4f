package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.model.Tuning;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/** How long a NodeSet pass waits for the next one when no signal comes first. */
final class NodeSetWaits {
  private NodeSetWaits() {}

  /**
   * Until the next pass unless a signal comes first:
   *
   * <ol>
   *   <li>a resync period, or a poll interval after a failed status write;
   *   <li>no later than the next probe of a node workflow found already running ({@link
   *       StartProbes});
   *   <li>and no later than when a health report goes stale, so that the condition turns Unknown on
   *       time.
   * </ol>
   */
  static Duration next(NodeSetState s, Tuning tuning, boolean writeFailed) {
    boolean retry = writeFailed || (s.spec != null && s.auto.writePending);
    long wait = retry ? tuning.pollSeconds() : tuning.resyncSeconds();
    Duration d = Duration.ofSeconds(wait);
    long probe = StartProbes.next(s.nodes);
    if (probe != Long.MAX_VALUE) {
      long in = Math.max(1, probe - Workflow.currentTimeMillis());
      if (in < d.toMillis()) {
        d = Duration.ofMillis(in);
      }
    }
    long now = Workflow.currentTimeMillis();
    long stale = NodeSetConditions.nextStaleMillis(s, now);
    if (stale != Long.MAX_VALUE && stale - now < d.toMillis()) {
      d = Duration.ofMillis(stale - now);
    }
    if (s.spec != null && s.spec.autoscaling() != null && !s.deleting) {
      long due = Autoscaler.nextMillis(s.spec.autoscaling(), s.auto, now);
      if (due != Long.MAX_VALUE && due - now < d.toMillis()) {
        d = Duration.ofMillis(Math.max(1, due - now));
      }
    }
    return d;
  }
}
