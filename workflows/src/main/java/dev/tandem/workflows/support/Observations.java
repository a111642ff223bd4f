package dev.tandem.workflows.support;

import java.time.Instant;

/** Ordering of observations that reach a workflow both by signal and by its own activities. */
public final class Observations {
  private Observations() {}

  /**
   * True when {@code incoming} was observed before what the workflow {@code held}: a late signal
   * that must not replace a newer read. Unknown times never count as late.
   */
  public static boolean late(Instant incoming, Instant held) {
    return incoming != null && held != null && incoming.isBefore(held);
  }
}
