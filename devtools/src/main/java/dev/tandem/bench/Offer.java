package dev.tandem.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * How a part of {@code tandem bench scheduling} offers its items (pods to create, raw jobs to
 * submit): all at once, as fast as the API answers ({@link #BURST}, the default, which measures
 * throughput), or paced at a fixed rate ({@code --rate}), which measures each side's latency at a
 * load the machine can carry, so that a pod's wait is its own path and not a queue of 200 pods on
 * two saturated cores (docs/benchmarks.md, "Latency at an offered load").
 *
 * @param perSecond items offered a second; 0: all at once
 */
public record Offer(double perSecond) {
  public static final Offer BURST = new Offer(0);

  /** The slowest pace accepted: 200 items then take at most 400 s. */
  static final double MIN_RATE = 0.5;

  /** The longest a paced part may take to offer its items. */
  static final Duration MAX_SPAN = Duration.ofMinutes(10);

  public Offer {
    if (perSecond != 0 && !(perSecond >= MIN_RATE && perSecond <= 1000)) {
      throw new IllegalArgumentException(
          "--rate must be 0 (all at once) or from " + MIN_RATE + " to 1000 a second: " + perSecond);
    }
  }

  /** The pace {@code rate} for {@code n} items, refused when offering them would take too long. */
  public static Offer of(double rate, int n) {
    Offer o = new Offer(rate);
    if (o.span(n).compareTo(MAX_SPAN) > 0) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "--rate %.1f offers %d items over %d s, more than %d s: raise the rate or lower"
                  + " --pods",
              rate,
              n,
              o.span(n).toSeconds(),
              MAX_SPAN.toSeconds()));
    }
    return o;
  }

  public boolean paced() {
    return perSecond > 0;
  }

  /** When item {@code i} (from 0) is due, after the first. */
  long dueNanos(int i) {
    return paced() ? Math.round(i * 1e9 / perSecond) : 0;
  }

  /** How long offering {@code n} items takes: from the first item's due time to the last one's. */
  Duration span(int n) {
    return Duration.ofNanos(n <= 0 ? 0 : dueNanos(n - 1));
  }

  /**
   * Runs {@code item.accept(i)} for each i from 0 to n − 1 on {@code threads} threads, item i no
   * sooner than {@link #dueNanos}(i) after this call, and returns the executor already shut down:
   * {@code awaitTermination} waits for the last item.
   */
  ScheduledExecutorService start(int n, int threads, IntConsumer item) {
    ScheduledThreadPoolExecutor ex = new ScheduledThreadPoolExecutor(threads);
    // Delayed items still run after shutdown(); shutdownNow() drops them.
    ex.setExecuteExistingDelayedTasksAfterShutdownPolicy(true);
    for (int i = 0; i < n; i++) {
      int k = i;
      ex.schedule(() -> item.accept(k), dueNanos(i), TimeUnit.NANOSECONDS);
    }
    ex.shutdown();
    return ex;
  }

  /** "all at once", or "at 5.0 a second". */
  public String describe() {
    return paced()
        ? String.format(Locale.ROOT, "at %.1f a second", perSecond)
        : "all at once, as fast as the API answers";
  }
}
