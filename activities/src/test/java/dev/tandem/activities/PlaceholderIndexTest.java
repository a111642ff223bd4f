package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.tandem.slurm.PlaceholderJob;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class PlaceholderIndexTest {
  private static final Instant T0 = Instant.parse("2026-11-24T03:00:00Z");
  private final SlurmClient slurm = mock(SlurmClient.class);
  private final AtomicReference<Instant> now = new AtomicReference<>(T0);
  private final Clock clock =
      new Clock() {
        @Override
        public ZoneOffset getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
          return this;
        }

        @Override
        public Instant instant() {
          return now.get();
        }
      };
  private final PlaceholderIndex index =
      new PlaceholderIndex(slurm, clock, Duration.ofMillis(500), Duration.ofSeconds(60));

  private static PlaceholderJob job(long id, String tag, String state) {
    return new PlaceholderJob(
        tag,
        id,
        state,
        null,
        List.of(),
        0,
        "RUNNING".equals(state) ? PlaceholderJob.Phase.RUNNING : PlaceholderJob.Phase.WAITING,
        null,
        null);
  }

  private void advance(long millis) {
    now.set(now.get().plusMillis(millis));
  }

  @Test
  void manyLookupsShareOneListingWhileTheIndexIsFresh() throws Exception {
    when(slurm.listPlaceholderJobs(any()))
        .thenReturn(new Listing<>(true, List.of(job(1, "a", "PENDING")), T0));
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<List<PlaceholderJob>>> got = new java.util.ArrayList<>();
      for (int i = 0; i < 200; i++) {
        got.add(pool.submit(() -> index.find("a")));
      }
      for (Future<List<PlaceholderJob>> f : got) {
        assertEquals(1, f.get(10, TimeUnit.SECONDS).size());
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(1, index.listings(), "200 lookups, one listing");
  }

  /**
   * A listing slower than the freshness bound (a loaded slurmrestd with many jobs) still serves
   * every lookup that was waiting for it: freshness counts from when a caller asked, not from when
   * the lock came free (before: each waiting submit listed again, one after the other).
   */
  @Test
  void lookupsWaitingBehindASlowListingShareIt() throws Exception {
    java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(8);
    when(slurm.listPlaceholderJobs(any()))
        .thenAnswer(
            inv -> {
              asked.await(5, TimeUnit.SECONDS); // every caller has asked (at T0)
              Thread.sleep(50); // and is waiting for this listing
              advance(800); // which took longer than "fresh"
              return new Listing<>(true, List.of(job(1, "a", "PENDING")), T0);
            });
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<List<PlaceholderJob>>> got = new java.util.ArrayList<>();
      for (int i = 0; i < 8; i++) {
        got.add(
            pool.submit(
                () -> {
                  asked.countDown();
                  return index.find("a");
                }));
      }
      for (Future<List<PlaceholderJob>> f : got) {
        assertEquals(1, f.get(10, TimeUnit.SECONDS).size());
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(1, index.listings(), "8 lookups asked at once, one listing");
    index.find("a");
    assertEquals(2, index.listings(), "asked after the listing began + fresh: a new one");
  }

  /** A job put while a full listing runs (submitted after it began) is not dropped by it. */
  @Test
  void aJobPutDuringAFullListingSurvivesIt() throws Exception {
    when(slurm.listPlaceholderJobs(any()))
        .thenAnswer(
            inv -> {
              advance(10);
              index.put(job(2, "b", "PENDING")); // submitted while the listing ran
              return new Listing<>(true, List.of(job(1, "a", "PENDING")), T0);
            });
    index.find("a");
    assertEquals(List.of(2L), index.find("b").stream().map(PlaceholderJob::jobId).toList());
  }

  @Test
  void aStaleIndexListsWhatChangedSinceAndKeepsTheNewestView() {
    when(slurm.listPlaceholderJobs(isNull()))
        .thenReturn(new Listing<>(true, List.of(job(1, "a", "PENDING")), T0));
    when(slurm.listPlaceholderJobs(eq(T0)))
        .thenReturn(
            new Listing<>(true, List.of(job(1, "a", "RUNNING"), job(2, "b", "PENDING")), T0));
    assertEquals("PENDING", index.find("a").get(0).state());
    advance(600);
    assertEquals("RUNNING", index.find("a").get(0).state());
    assertEquals(1, index.find("b").size());
    verify(slurm, times(1)).listPlaceholderJobs(isNull());
    verify(slurm, times(1)).listPlaceholderJobs(eq(T0));
  }

  @Test
  void aJobJustSubmittedIsFoundBeforeTheNextListing() {
    when(slurm.listPlaceholderJobs(any())).thenReturn(new Listing<>(true, List.of(), T0));
    assertEquals(0, index.find("c").size());
    index.put(job(3, "c", "PENDING"));
    assertEquals(3, index.find("c").get(0).jobId());
  }

  @Test
  void aFullListingDropsJobsSlurmPurged() {
    // (eq() passes null while stubbing: stub it before the consecutive answers for null.)
    when(slurm.listPlaceholderJobs(eq(T0))).thenReturn(Listing.unchanged(T0));
    when(slurm.listPlaceholderJobs(isNull()))
        .thenReturn(new Listing<>(true, List.of(job(1, "a", "PENDING")), T0))
        .thenReturn(new Listing<>(true, List.of(), T0));
    assertEquals(1, index.find("a").size());
    advance(1000);
    assertEquals(1, index.find("a").size(), "an unchanged incremental listing keeps it");
    advance(60_000);
    assertEquals(0, index.find("a").size());
  }
}
