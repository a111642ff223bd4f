package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.nodeset.NodeSetState.Entry;
import java.util.Map;

/**
 * Probes of a node workflow that was already running when the NodeSet started it and has not
 * reported since (step 4 of {@link NodeSetNodes#restartMissing()}). The running one may be an
 * earlier node of the same name between its last report and its end: a NodeSet deleted and created
 * again under the same name, or scaled down and up again at once.
 *
 * <ol>
 *   <li>The first probe is two poll intervals after the start was refused; each next one waits
 *       twice as long as the one before.
 *   <li>A probe asks the node workflow to report. Not found: it has ended, and the node is started
 *       in the same pass. Found: probed again later.
 *   <li>Any report ends the probes: the running workflow is the node.
 *   <li>Once the wait would pass one resync period the probes end, and the NodeSet's silence rule
 *       (30 resync periods without a report) takes over.
 * </ol>
 */
final class StartProbes {
  private StartProbes() {}

  /** Step 1: the first probe, after a start found the workflow running. */
  static void begin(Entry e, Tuning tuning, long now) {
    e.probeEveryMillis = tuning.pollSeconds() * 2000L;
    e.probeAtMillis = now + e.probeEveryMillis;
  }

  /** Whether a probe of {@code e} is due. */
  static boolean due(Entry e, long now) {
    return e.started && e.probeAtMillis > 0 && now >= e.probeAtMillis;
  }

  /** Steps 2 and 4: probes once; answers whether the workflow still runs. */
  static boolean probe(Entry e, NodeRef ref, Tuning tuning, long now) {
    boolean running = NodeMessenger.resync(ref);
    e.probeEveryMillis *= 2;
    if (!running || e.probeEveryMillis > tuning.resyncSeconds() * 1000L) {
      e.probeAtMillis = 0;
    } else {
      e.probeAtMillis = now + e.probeEveryMillis;
    }
    return running;
  }

  /** Step 3. */
  static void reported(Entry e) {
    e.probeAtMillis = 0;
  }

  /** The earliest probe due, or {@code Long.MAX_VALUE}: none. */
  static long next(Map<Integer, Entry> nodes) {
    long next = Long.MAX_VALUE;
    for (Entry e : nodes.values()) {
      if (e.started && e.probeAtMillis > 0) {
        next = Math.min(next, e.probeAtMillis);
      }
    }
    return next;
  }
}
