package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tandem.slurm.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The shared-listing rule of the worker: one load at a time, taken by every caller it serves. */
class SingleFlightTest {
  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");
  private final MutableClock clock = new MutableClock(T0);
  private final AtomicInteger failNext = new AtomicInteger();

  @Test
  void callersWaitingBehindALoadShareTheNextOneNeverAnOlderOne() throws Exception {
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch othersAsked = new CountDownLatch(7);
    SingleFlight<Instant> flight =
        new SingleFlight<>(
            clock,
            began -> {
              if (firstRunning.getCount() == 1) {
                firstRunning.countDown();
                await(othersAsked); // 7 callers ask while this one runs
              }
              clock.advance(Duration.ofMillis(300));
              return began;
            });
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      Future<Instant> first = pool.submit(() -> flight.get(Duration.ZERO));
      firstRunning.await(5, TimeUnit.SECONDS);
      clock.advance(Duration.ofMillis(1)); // they ask after the first load began
      Instant asked = clock.instant();
      List<Future<Instant>> got = new ArrayList<>();
      for (int i = 0; i < 7; i++) {
        got.add(
            pool.submit(
                () -> {
                  othersAsked.countDown();
                  return flight.get(Duration.ZERO);
                }));
      }
      assertEquals(T0, first.get(10, TimeUnit.SECONDS));
      for (Future<Instant> f : got) {
        Instant began = f.get(10, TimeUnit.SECONDS);
        assertEquals(true, began.isAfter(asked), "a load begun after the ask: " + began);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(2, flight.loads(), "8 callers, 2 loads");
  }

  @Test
  void aLoadServesCallersWithinTheSlackAndNoLater() {
    SingleFlight<Instant> flight = new SingleFlight<>(clock, began -> began);
    flight.get(Duration.ofMillis(500));
    for (int i = 0; i < 50; i++) {
      clock.advance(Duration.ofMillis(9)); // 450 ms in all: still within the slack
      assertEquals(T0, flight.get(Duration.ofMillis(500)));
    }
    assertEquals(1, flight.loads(), "50 callers within the slack, one load");
    clock.advance(Duration.ofMillis(60));
    assertEquals(clock.instant(), flight.get(Duration.ofMillis(500)));
    assertEquals(2, flight.loads(), "past the slack: a new load");
  }

  @Test
  void aFailedLoadIsNeverServedToALaterCallerEvenWithinTheSlack() {
    SingleFlight<Instant> flight =
        new SingleFlight<>(
            clock,
            began -> {
              if (failNext.getAndSet(0) == 1) {
                throw new IllegalStateException("outage");
              }
              return began;
            });
    failNext.set(1);
    assertThrows(IllegalStateException.class, () -> flight.get(Duration.ofSeconds(10)));
    clock.advance(Duration.ofMillis(1));
    assertEquals(clock.instant(), flight.get(Duration.ofSeconds(10)), "a later caller loads");
    assertEquals(2, flight.loads());
  }

  private static void await(CountDownLatch l) {
    try {
      l.await(5, TimeUnit.SECONDS);
      Thread.sleep(50);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
