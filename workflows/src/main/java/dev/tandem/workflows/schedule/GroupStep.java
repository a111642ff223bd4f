package dev.tandem.workflows.schedule;

/**
 * What a group phase handler decided: move to {@code next} (recording {@code event}/{@code detail}
 * in the timeline), or stay and wait up to {@code waitSeconds} for a signal.
 */
record GroupStep(GroupPhase next, String event, String detail, long waitSeconds) {

  static GroupStep to(GroupPhase next, String event, String detail) {
    return new GroupStep(next, event, detail, 0);
  }

  static GroupStep stay(GroupPhase phase, long waitSeconds) {
    return new GroupStep(phase, null, null, waitSeconds);
  }
}
