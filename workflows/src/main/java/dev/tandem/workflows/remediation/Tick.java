package dev.tandem.workflows.remediation;

/**
 * What a step handler decided: it moved the ladder ({@link Ladder#enter}), so the loop runs the
 * next handler at once, or it stays and waits up to {@code waitSeconds} for a signal.
 */
record Tick(boolean moved, long waitSeconds) {
  static Tick next() {
    return new Tick(true, 0);
  }

  static Tick stay(long waitSeconds) {
    return new Tick(false, Math.max(1, waitSeconds));
  }
}
