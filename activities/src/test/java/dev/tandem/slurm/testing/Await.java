package dev.tandem.slurm.testing;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Bounded polling for tests: every loop ends by time. */
public final class Await {
  private Await() {}

  /**
   * Polls {@code probe} every {@code every} until {@code done} accepts its value; returns that
   * value, or fails with {@code what} and the last value seen after {@code limit}.
   */
  public static <T> T until(
      String what, Duration limit, Duration every, Supplier<T> probe, Predicate<T> done) {
    long deadline = System.nanoTime() + limit.toNanos();
    T last = null;
    RuntimeException lastError = null;
    while (true) {
      try {
        last = probe.get();
        lastError = null;
        if (done.test(last)) {
          return last;
        }
      } catch (RuntimeException e) {
        lastError = e;
      }
      if (System.nanoTime() >= deadline) {
        AssertionError err =
            new AssertionError(
                "timed out after " + limit + " waiting for " + what + "; last seen: " + last);
        if (lastError != null) {
          err.initCause(lastError);
        }
        throw err;
      }
      try {
        Thread.sleep(every.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
  }

  public static <T> T until(String what, Duration limit, Supplier<T> probe, Predicate<T> done) {
    return until(what, limit, Duration.ofMillis(200), probe, done);
  }
}
