package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * Timing knobs of the long-lived workflows. Production uses {@link #defaults()}; tests shorten
 * them. Carried in workflow inputs so that a running workflow keeps the values it started with.
 *
 * @param pollSeconds how often a node in a transitional phase re-reads Kubernetes and Slurm when no
 *     signal arrives (signals may be lost: the timer makes that a delay, never a wedge)
 * @param resyncSeconds the same for steady phases (ready, drained) and for the NodeSet
 * @param maxHistoryEvents continue-as-new once the history is this long
 * @param timelineLimit how many timeline entries a node keeps
 * @param slowSeconds after this long in a transitional phase the node reports itself stuck
 * @param searchAttributes upsert the Tandem search attributes (they must be registered on the
 *     Temporal namespace first: upserting an unregistered one fails the workflow task)
 * @param restMaxSeconds the longest a node at rest (ready or drained, no signal) waits between
 *     safety re-reads, once a re-read found nothing the watchers did not report
 *     (docs/architecture.md, "Safety re-reads at rest"); the worker's default is 12 hours ({@code
 *     TANDEM_NODE_REST_MAX}); 0 (or absent in an older input) means 8 × {@code resyncSeconds}
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Tuning(
    long pollSeconds,
    long resyncSeconds,
    int maxHistoryEvents,
    int timelineLimit,
    long slowSeconds,
    boolean searchAttributes,
    long restMaxSeconds) {

  /** How much longer than {@code resyncSeconds} a node at rest may wait by default. */
  public static final int REST_FACTOR = 8;

  public Tuning {
    if (pollSeconds < 1 || resyncSeconds < 1) {
      throw new IllegalArgumentException("poll and resync intervals must be >= 1 s");
    }
    if (restMaxSeconds <= 0) {
      restMaxSeconds = resyncSeconds * REST_FACTOR;
    }
    if (restMaxSeconds < resyncSeconds) {
      throw new IllegalArgumentException("the longest rest wait must be >= the resync interval");
    }
    if (maxHistoryEvents < 200) {
      throw new IllegalArgumentException("maxHistoryEvents must be >= 200");
    }
  }

  /** With the default rest bound, 8 × {@code resyncSeconds}. */
  public Tuning(
      long pollSeconds,
      long resyncSeconds,
      int maxHistoryEvents,
      int timelineLimit,
      long slowSeconds,
      boolean searchAttributes) {
    this(
        pollSeconds,
        resyncSeconds,
        maxHistoryEvents,
        timelineLimit,
        slowSeconds,
        searchAttributes,
        0);
  }

  public static Tuning defaults() {
    return new Tuning(5, 120, 4000, 100, 900, true, 0);
  }

  public Tuning withSearchAttributes(boolean on) {
    return new Tuning(
        pollSeconds,
        resyncSeconds,
        maxHistoryEvents,
        timelineLimit,
        slowSeconds,
        on,
        restMaxSeconds);
  }
}
