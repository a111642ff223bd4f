package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CoalescerTest {
  private final AtomicInteger coalesced = new AtomicInteger();
  private final AtomicInteger failures = new AtomicInteger();
  private final Coalescer.Listener listener =
      new Coalescer.Listener() {
        @Override
        public void coalesced(String key) {
          coalesced.incrementAndGet();
        }

        @Override
        public void failed(String key, Exception e, boolean willRetry) {
          failures.incrementAndGet();
        }
      };

  @Test
  void aBurstForOneKeyRunsTheFirstAndTheLatest() throws Exception {
    try (Coalescer c = new Coalescer(2, Duration.ofMillis(10), listener)) {
      CountDownLatch gate = new CountDownLatch(1);
      List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
      c.submit(
          "k",
          () -> {
            gate.await(5, TimeUnit.SECONDS);
            ran.add(0);
          });
      Thread.sleep(50); // the first one is running now
      for (int i = 1; i <= 50; i++) {
        int v = i;
        c.submit("k", () -> ran.add(v));
      }
      gate.countDown();
      assertTrue(c.drain(Duration.ofSeconds(5)));
      assertEquals(List.of(0, 50), ran);
      assertEquals(49, coalesced.get());
    }
  }

  @Test
  void oneKeyNeverRunsTwiceAtOnceOtherKeysDo() throws Exception {
    try (Coalescer c = new Coalescer(4, Duration.ofMillis(10), listener)) {
      AtomicInteger concurrent = new AtomicInteger();
      AtomicInteger max = new AtomicInteger();
      for (int i = 0; i < 20; i++) {
        c.submit(
            "same",
            () -> {
              max.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
              Thread.sleep(5);
              concurrent.decrementAndGet();
            });
        Thread.sleep(2);
      }
      assertTrue(c.drain(Duration.ofSeconds(5)));
      assertEquals(1, max.get());
    }
  }

  @Test
  void failuresAreRetriedThenDropped() throws Exception {
    try (Coalescer c = new Coalescer(1, Duration.ofMillis(5), listener)) {
      AtomicInteger attempts = new AtomicInteger();
      c.submit(
          "k",
          () -> {
            if (attempts.incrementAndGet() < 3) {
              throw new IllegalStateException("not yet");
            }
          });
      assertTrue(c.drain(Duration.ofSeconds(5)));
      assertEquals(3, attempts.get());
      AtomicInteger hopeless = new AtomicInteger();
      c.submit(
          "h",
          () -> {
            hopeless.incrementAndGet();
            throw new IllegalStateException("never");
          });
      assertTrue(c.drain(Duration.ofSeconds(5)));
      assertEquals(Coalescer.MAX_ATTEMPTS, hopeless.get());
    }
  }
}
