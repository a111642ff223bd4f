package dev.tandem.bench;

import dev.tandem.bench.SchedulingFigures.Run;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Part 1 of {@code tandem bench scheduling}: N pods through Slurm, each deleted as soon as it is
 * bound so its placeholder job is cancelled and its Slurm slot freed (N may exceed the slots).
 *
 * <ol>
 *   <li>The pods are created from {@link #CREATORS} threads, as fast as the API answers, or paced
 *       ({@link Offer}); a pod's clock starts when its create is answered.
 *   <li>{@link BenchPods}' watch stops a pod's clock at the first event with {@code spec.nodeName}
 *       and deletes the pod.
 *   <li>The run ends when every pod was bound, when none was bound for {@link #STALL}, or at an
 *       overall limit of 2 minutes + 1 s per pod; pods never bound are reported, not sampled.
 * </ol>
 */
final class PodChurn {
  static final int CREATORS = 8;
  static final Duration STALL = Duration.ofSeconds(60);

  private final BenchPods pods;
  private final String runId;
  private final Offer offer;

  PodChurn(BenchPods pods, String runId, Offer offer) {
    this.pods = pods;
    this.runId = runId;
    this.offer = offer;
  }

  /** Runs N pods; the uids of the created pods are added to {@code uids}. */
  Run run(int n, List<String> uids) throws InterruptedException {
    Map<String, Long> created = new ConcurrentHashMap<>();
    List<String> createdUids = java.util.Collections.synchronizedList(new ArrayList<>());
    ExecutorService creators =
        offer.start(
            n,
            CREATORS,
            i -> {
              String name = "bench-" + runId + "-" + i;
              try {
                createdUids.add(pods.create(name, true, false));
                created.put(name, System.nanoTime());
              } catch (RuntimeException e) {
                // counted below as never created
              }
            });
    creators.awaitTermination(offer.span(n).plusMinutes(2).toMillis(), TimeUnit.MILLISECONDS);
    long end = System.nanoTime() + Duration.ofMinutes(2).plusSeconds(n).toNanos();
    int lastCount = -1;
    long lastProgress = System.nanoTime();
    while (pods.boundCount() < created.size() && System.nanoTime() < end) {
      int c = pods.boundCount();
      if (c != lastCount) {
        lastCount = c;
        lastProgress = System.nanoTime();
      } else if (System.nanoTime() - lastProgress > STALL.toNanos()) {
        break;
      }
      Thread.sleep(100);
    }
    uids.addAll(createdUids);
    List<Double> ms = new ArrayList<>();
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (Map.Entry<String, Long> e : created.entrySet()) {
      first = Math.min(first, e.getValue());
      Long b = pods.boundAt(e.getKey());
      if (b != null) {
        ms.add(Math.max(0, b - e.getValue()) / 1e6);
        last = Math.max(last, b);
      }
    }
    return new Run(n, first, last, ms);
  }
}
