package dev.tandem.workflows.support;

/**
 * What a phase handler of a phase-machine workflow (node, pod, gang) decided: move to {@code next}
 * (recording {@code event}/{@code detail} in the timeline), or stay and wait up to {@code
 * waitSeconds} for a signal.
 *
 * @param <P> the workflow's phase enum
 */
public record Step<P>(P next, String event, String detail, long waitSeconds) {

  public static <P> Step<P> to(P next, String event, String detail) {
    return new Step<>(next, event, detail, 0);
  }

  public static <P> Step<P> stay(P phase, long waitSeconds) {
    return new Step<>(phase, null, null, waitSeconds);
  }
}
