package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmUnavailableException;
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
import org.junit.jupiter.api.Test;

/** Drain waits asking together share a full job listing begun after each of them asked. */
class SharedJobListingTest {
  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");
  private final SlurmClient slurm = mock(SlurmClient.class);
  private final MutableClock clock = new MutableClock(T0);
  private final SharedJobListing shared = new SharedJobListing(slurm, clock);
  private final Listing<SlurmJob> listing = new Listing<>(true, List.of(), T0);

  @Test
  void callersWaitingBehindAListingShareTheNextOneNeverAnOlderOne() throws Exception {
    CountDownLatch firstRunning = new CountDownLatch(1);
    CountDownLatch othersAsked = new CountDownLatch(7);
    when(slurm.listJobs(isNull()))
        .thenAnswer(
            inv -> {
              if (firstRunning.getCount() == 1) {
                firstRunning.countDown();
                othersAsked.await(5, TimeUnit.SECONDS); // 7 callers ask while this one runs
                Thread.sleep(50);
              }
              clock.advance(Duration.ofMillis(300));
              return listing;
            });
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Listing<SlurmJob>>> got = new ArrayList<>();
      got.add(pool.submit(shared::all));
      firstRunning.await(5, TimeUnit.SECONDS);
      clock.advance(Duration.ofMillis(1)); // they ask after the first listing began
      for (int i = 0; i < 7; i++) {
        got.add(
            pool.submit(
                () -> {
                  othersAsked.countDown();
                  return shared.all();
                }));
      }
      for (Future<Listing<SlurmJob>> f : got) {
        assertSame(listing, f.get(10, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    // The first listing began before the 7 asked: they may not use it; they share one more.
    assertEquals(2, shared.listings(), "8 drain waits, 2 listings (one each before)");
  }

  @Test
  void aFailedListingFailsItsWaitersButIsNotCached() {
    when(slurm.listJobs(isNull()))
        .thenThrow(new SlurmUnavailableException("connection refused"))
        .thenReturn(listing);
    assertThrows(SlurmUnavailableException.class, shared::all);
    clock.advance(Duration.ofMillis(1));
    assertSame(listing, shared.all(), "a later caller lists again");
    assertEquals(2, shared.listings());
  }
}
