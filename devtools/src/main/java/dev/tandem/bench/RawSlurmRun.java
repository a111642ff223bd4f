package dev.tandem.bench;

import dev.tandem.bench.SchedulingFigures.Run;
import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmJob;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Part 2 of {@code tandem bench scheduling}: the same N as jobs straight through slurmrestd, the
 * floor pods through Slurm are compared with.
 *
 * <ol>
 *   <li>N jobs of the pods' size (1 CPU, 64 MiB, same partition, sleeping) are submitted from
 *       {@link PodChurn#CREATORS} threads, offered as the pods were ({@link Offer}); a job's clock
 *       starts when its submit is answered. Their names carry the run id but NOT the placeholder
 *       tag, so Tandem never takes them for orphaned placeholders.
 *   <li>One incremental {@code listJobs(since)} every {@link #EVERY} stops a job's clock when it
 *       shows RUNNING and cancels it, which frees its slot as deleting a pod does.
 *   <li>The run ends as {@link PodChurn}'s does; then every job of the run still listed and not
 *       finished is cancelled.
 * </ol>
 */
final class RawSlurmRun {
  static final Duration EVERY = Duration.ofMillis(100);

  private final SlurmClient slurm;
  private final String partition;
  private final String prefix;
  private final Offer offer;
  private final List<Double> listingsMs = Collections.synchronizedList(new ArrayList<>());

  RawSlurmRun(SlurmClient slurm, String partition, String runId, Offer offer) {
    this.slurm = slurm;
    this.partition = partition;
    this.prefix = "tandem-bench-raw-" + runId + "-";
    this.offer = offer;
  }

  Run run(int n) throws InterruptedException {
    Map<String, Long> submitted = new ConcurrentHashMap<>();
    Map<String, Long> running = new ConcurrentHashMap<>();
    ExecutorService cancellers = Executors.newFixedThreadPool(4);
    ExecutorService submitters =
        offer.start(
            n,
            PodChurn.CREATORS,
            i -> {
              String name = prefix + i;
              try {
                slurm.submit(job(name, "raw", partition));
                submitted.put(name, System.nanoTime());
              } catch (RuntimeException e) {
                // counted as never running
              }
            });
    try {
      Instant since = null;
      long end =
          System.nanoTime() + Duration.ofMinutes(2).plusSeconds(n).plus(offer.span(n)).toNanos();
      long lastProgress = System.nanoTime();
      int lastCount = 0;
      while (System.nanoTime() < end
          && (!submitters.isTerminated() || running.size() < submitted.size())) {
        long asked = System.nanoTime();
        SlurmClient.Listing<SlurmJob> l = slurm.listJobs(since);
        long now = System.nanoTime();
        listingsMs.add((now - asked) / 1e6);
        since = l.updateTime();
        for (SlurmJob j : l.items()) {
          if (j.name() != null
              && j.name().startsWith(prefix)
              && j.running()
              && running.putIfAbsent(j.name(), now) == null) {
            cancellers.execute(() -> cancelQuietly(j.id()));
          }
        }
        if (running.size() != lastCount) {
          lastCount = running.size();
          lastProgress = now;
        } else if (now - lastProgress > PodChurn.STALL.toNanos()) {
          break;
        }
        Thread.sleep(EVERY.toMillis());
      }
    } finally {
      submitters.shutdownNow();
      cancellers.shutdown();
      cancellers.awaitTermination(30, TimeUnit.SECONDS);
      cancelLeftovers();
    }
    List<Double> ms = new ArrayList<>();
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (Map.Entry<String, Long> e : submitted.entrySet()) {
      first = Math.min(first, e.getValue());
      Long r = running.get(e.getKey());
      if (r != null) {
        ms.add(Math.max(0, r - e.getValue()) / 1e6);
        last = Math.max(last, r);
      }
    }
    return new Run(n, first, last, ms);
  }

  /** How long each of the last run's job listings took, asked → answered and read. */
  List<Double> listingsMs() {
    return List.copyOf(listingsMs);
  }

  /**
   * A job of the bench pods' size (1 CPU, 64 MiB, one node, no requeue), sleeping, named {@code
   * name}; {@code part} says in its comment which part of the bench submitted it.
   */
  static JobSubmission job(String name, String part, String partition) {
    return JobSubmission.builder(name)
        .comment("tandem bench scheduling (" + part + ")")
        .partition(partition)
        .nodeCount(1)
        .cpusPerNode(1)
        .memoryMbPerNode(64L)
        .noRequeue(true)
        .build();
  }

  private void cancelQuietly(long id) {
    try {
      slurm.cancel(id, null);
    } catch (RuntimeException e) {
      // cancelLeftovers tries again
    }
  }

  /** Cancels every job of this run that may still run or wait. */
  private void cancelLeftovers() {
    cancelUnfinished(slurm, prefix, (id, e) -> {});
  }

  /**
   * Cancels every job whose name starts with {@code prefix} and that may still run or wait; a
   * cancel that fails is handed to {@code failed}.
   */
  static void cancelUnfinished(
      SlurmClient slurm, String prefix, BiConsumer<Long, RuntimeException> failed) {
    for (long id : unfinished(slurm, prefix)) {
      try {
        slurm.cancel(id, null);
      } catch (RuntimeException e) {
        failed.accept(id, e);
      }
    }
  }

  /**
   * The ids of the jobs named {@code prefix...} that Slurm lists as waiting or running: one full
   * listing.
   */
  static List<Long> unfinished(SlurmClient slurm, String prefix) {
    List<Long> ids = new ArrayList<>();
    for (SlurmJob j : slurm.listJobs(null).items()) {
      if (j.name() != null && j.name().startsWith(prefix) && !j.finished()) {
        ids.add(j.id());
      }
    }
    return ids;
  }
}
