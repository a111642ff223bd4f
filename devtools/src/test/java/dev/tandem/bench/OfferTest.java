package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class OfferTest {
  @Test
  void aPacedItemNeverStartsBeforeItIsDue() throws InterruptedException {
    Offer o = new Offer(50);
    ConcurrentHashMap<Integer, Long> started = new ConcurrentHashMap<>();
    long t0 = System.nanoTime();
    ExecutorService ex = o.start(6, 3, i -> started.put(i, System.nanoTime()));
    assertTrue(ex.awaitTermination(10, TimeUnit.SECONDS));
    assertEquals(6, started.size());
    for (int i = 0; i < 6; i++) {
      // A scheduled executor runs nothing early: item i waits i × 20 ms at least.
      assertTrue(started.get(i) - t0 >= o.dueNanos(i), "item " + i);
    }
    assertEquals(Duration.ofMillis(100), o.span(6));
  }

  @Test
  void allAtOnceOffersEveryItemWithoutWaiting() throws InterruptedException {
    ConcurrentHashMap<Integer, Long> started = new ConcurrentHashMap<>();
    ExecutorService ex = Offer.BURST.start(20, 8, i -> started.put(i, System.nanoTime()));
    assertTrue(ex.awaitTermination(10, TimeUnit.SECONDS));
    assertEquals(20, started.size());
    assertEquals(Duration.ZERO, Offer.BURST.span(20));
    assertEquals("all at once, as fast as the API answers", Offer.BURST.describe());
  }

  @Test
  void aRateTooSlowForItsItemsOrOutOfRangeIsRefusedWithWhatToChange() {
    IllegalArgumentException slow =
        assertThrows(IllegalArgumentException.class, () -> Offer.of(0.5, 400));
    assertTrue(slow.getMessage().contains("raise the rate or lower --pods"), slow.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new Offer(0.1));
    assertThrows(IllegalArgumentException.class, () -> new Offer(-1));
    assertThrows(IllegalArgumentException.class, () -> new Offer(Double.NaN));
    assertEquals(Duration.ofSeconds(398), Offer.of(0.5, 200).span(200));
  }
}
