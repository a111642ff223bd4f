package dev.tandem.workflows.schedule;

/**
 * What a phase handler decided: move to {@code next} (recording {@code event}/{@code detail} in the
 * timeline), or stay and wait up to {@code waitSeconds} for a signal.
 */
record ScheduleStep(SchedulePhase next, String event, String detail, long waitSeconds) {

  static ScheduleStep to(SchedulePhase next, String event, String detail) {
    return new ScheduleStep(next, event, detail, 0);
  }

  static ScheduleStep stay(SchedulePhase phase, long waitSeconds) {
    return new ScheduleStep(phase, null, null, waitSeconds);
  }
}
