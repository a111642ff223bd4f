package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.model.NodeSetStatusView;

/**
 * When the NodeSet workflow continues as new.
 *
 * <ol>
 *   <li>Not before its history reaches {@code maxHistoryEvents} or the server suggests it.
 *   <li>Then at once while the NodeSet is settled: every desired node exists, is ready and runs the
 *       update revision ({@link #busy}).
 *   <li>While it is busy (a rollout, a scale-up or -down, nodes coming back), not until the history
 *       is {@link #BUSY_FACTOR} times as long. A busy NodeSet takes dozens of node reports a
 *       second; a report that arrives while the task that continues as new completes makes the
 *       server refuse that task ({@code UnhandledCommand}), and the retry replays the whole history
 *       while more reports arrive. In {@code tandem bench fleet} (1,000 nodes) one such episode
 *       stopped a rollout for 11 of its 123 s, with no node told to update. Continuing as new when
 *       the rollout is over costs one workflow task. When a busy NodeSet must continue as new
 *       anyway, a refused attempt is made again from a short task ({@code RefusedContinues}).
 * </ol>
 *
 * <p>The bound stays: a NodeSet that never settles (a node that cannot become ready) continues as
 * new at twice the usual length, and never past {@link #BUSY_LIMIT} on that account (a real server
 * warns at 10,240 events by default and ends a workflow at 51,200).
 */
final class ContinueAsNewTiming {
  private ContinueAsNewTiming() {}

  /** How much longer a busy NodeSet's history may grow before it continues as new anyway. */
  static final int BUSY_FACTOR = 2;

  /**
   * But never past this many events on that account: below the 10,240 at which a real server starts
   * to warn (a bound set above it is kept as it is).
   */
  static final long BUSY_LIMIT = 10_000;

  /**
   * Whether to continue as new now.
   *
   * @param busy {@link #busy} of the status the pass computed
   */
  static boolean due(long events, int maxEvents, boolean suggested, boolean busy) {
    if (events < maxEvents && !suggested) {
      return false;
    }
    long busyBound = Math.max(maxEvents, Math.min((long) BUSY_FACTOR * maxEvents, BUSY_LIMIT));
    return !busy || events >= busyBound;
  }

  /** Nodes are being created, removed, rolled or waited for: not all desired ones ready and new. */
  static boolean busy(NodeSetStatusView st, int desired) {
    return st.replicas() != desired
        || st.readyReplicas() != desired
        || st.updatedReplicas() != desired;
  }
}
