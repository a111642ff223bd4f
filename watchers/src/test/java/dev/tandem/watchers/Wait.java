package dev.tandem.watchers;

import dev.tandem.slurm.testing.Await;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Bounded waits on a condition (over the repository's {@link Await}). */
final class Wait {
  private Wait() {}

  static final Duration DEFAULT = Duration.ofSeconds(15);

  static void until(String what, BooleanSupplier condition) {
    until(what, DEFAULT, condition);
  }

  static void until(String what, Duration limit, BooleanSupplier condition) {
    Await.until(what, limit, Duration.ofMillis(20), condition::getAsBoolean, ok -> ok);
  }
}
