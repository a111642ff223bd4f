package dev.tandem.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** KillWait at start: Slurm's value, else the fallback; an unreachable Slurm never blocks start. */
class KillWaitLookupTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  @Test
  void slurmsValueWins() {
    KillWaitLookup.Result r =
        KillWaitLookup.resolve(() -> Optional.of(Duration.ofSeconds(90)), 30, TIMEOUT);
    assertEquals(new KillWaitLookup.Result(90, KillWaitLookup.Source.SLURM), r);
  }

  @Test
  void anApiThatDoesNotReportItGivesTheFallback() {
    KillWaitLookup.Result r = KillWaitLookup.resolve(Optional::empty, 45, TIMEOUT);
    assertEquals(new KillWaitLookup.Result(45, KillWaitLookup.Source.CONFIGURED), r);
  }

  @Test
  void anUnreachableSlurmGivesTheFallback() {
    KillWaitLookup.Result r =
        KillWaitLookup.resolve(
            () -> {
              throw new IllegalStateException("connection refused");
            },
            45,
            TIMEOUT);
    assertEquals(
        new KillWaitLookup.Result(45, KillWaitLookup.Source.CONFIGURED_SLURM_UNREACHABLE), r);
  }

  @Test
  void aSlurmThatDoesNotAnswerDoesNotBlockStart() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    long start = System.nanoTime();
    KillWaitLookup.Result r =
        KillWaitLookup.resolve(
            () -> {
              try {
                never.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return Optional.of(Duration.ofSeconds(1));
            },
            45,
            Duration.ofMillis(200));
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    never.countDown();
    assertEquals(
        new KillWaitLookup.Result(45, KillWaitLookup.Source.CONFIGURED_SLURM_UNREACHABLE), r);
    assertTrue(took.compareTo(Duration.ofSeconds(4)) < 0, "took " + took);
  }
}
