package dev.tandem.bench;

import dev.tandem.slurm.bench.Latencies;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The figures of {@code tandem bench scheduling} and its targets, kept free of I/O so they are
 * unit-tested: throughput of a run, latency percentiles, and the PASS/MISS verdicts.
 */
public final class SchedulingFigures {
  /** How much of the raw slurmrestd throughput pods must reach. */
  public static final double THROUGHPUT_SHARE = 0.8;

  /** How much later than a raw job's p50 a pod's create → bind p50 may be. */
  public static final double BIND_P50_SLACK_MS = 250;

  /** Preemption → eviction p99 may exceed the Slurm poll interval by this much. */
  public static final Duration PREEMPTION_SLACK = Duration.ofSeconds(1);

  private SchedulingFigures() {}

  /**
   * A paced side that finished its items below this share of the rate it would have reached with
   * every item taking its median latency fell behind: its latencies hold a queue.
   */
  public static final double KEPT_UP_SHARE = 0.95;

  /**
   * A verdict; no samples is never a pass (fail closed), nor is a figure the run did not measure (a
   * paced run's throughput: both sides get the offered rate).
   */
  public enum Verdict {
    PASS,
    MISS,
    NO_DATA,
    NOT_MEASURED
  }

  /**
   * One timed run of {@code wanted} items (pods or jobs): when the first one was sent (answered by
   * the API), when the last one finished (bound or RUNNING), and each item's latency.
   *
   * @param wanted how many items were sent
   * @param firstSentNanos {@link System#nanoTime()} of the first answered create/submit
   * @param lastDoneNanos {@link System#nanoTime()} of the last bind/RUNNING seen
   * @param latenciesMs one latency per item that finished
   */
  public record Run(int wanted, long firstSentNanos, long lastDoneNanos, List<Double> latenciesMs) {
    public Run {
      latenciesMs = List.copyOf(latenciesMs);
    }

    public int done() {
      return latenciesMs.size();
    }

    /** Items finished per second over first send → last finish; NaN when nothing finished. */
    public double perSecond() {
      double seconds = (lastDoneNanos - firstSentNanos) / 1e9;
      if (latenciesMs.isEmpty() || seconds <= 0) {
        return Double.NaN;
      }
      return done() / seconds;
    }

    public double p50() {
      return percentile(latenciesMs, 50);
    }

    public double p99() {
      return percentile(latenciesMs, 99);
    }
  }

  /** Nearest-rank percentile of unsorted samples; NaN when there are none. */
  public static double percentile(List<Double> samples, double p) {
    if (samples.isEmpty()) {
      return Double.NaN;
    }
    List<Double> s = new ArrayList<>(samples);
    s.sort(null);
    return Latencies.percentile(s, p);
  }

  /**
   * Pods reach at least {@link #THROUGHPUT_SHARE} of raw slurmrestd's throughput, when both were
   * offered all at once; a paced run measures none ({@link Verdict#NOT_MEASURED}).
   */
  public static Verdict throughput(Run pods, Run raw, Offer offer) {
    return offer.paced() ? Verdict.NOT_MEASURED : throughput(pods, raw);
  }

  /** Pods reach at least {@link #THROUGHPUT_SHARE} of raw slurmrestd's throughput. */
  public static Verdict throughput(Run pods, Run raw) {
    if (incomplete(pods) || incomplete(raw)) {
      return Verdict.NO_DATA;
    }
    return pods.perSecond() >= THROUGHPUT_SHARE * raw.perSecond() ? Verdict.PASS : Verdict.MISS;
  }

  /** A pod's create → bind p50 is at most the raw submit → RUNNING p50 + 250 ms. */
  public static Verdict bindLatency(Run pods, Run raw) {
    if (pods.done() == 0 || raw.done() == 0) {
      return Verdict.NO_DATA;
    }
    return pods.p50() <= raw.p50() + BIND_P50_SLACK_MS ? Verdict.PASS : Verdict.MISS;
  }

  /** The target of preemption → eviction p99: the Slurm poll interval + 1 s, in milliseconds. */
  public static long preemptionTargetMs(Duration slurmPoll) {
    return slurmPoll.plus(PREEMPTION_SLACK).toMillis();
  }

  /** Preemption → eviction p99 is at most {@link #preemptionTargetMs}. */
  public static Verdict preemption(List<Double> samplesMs, Duration slurmPoll) {
    if (samplesMs.isEmpty()) {
      return Verdict.NO_DATA;
    }
    return percentile(samplesMs, 99) <= preemptionTargetMs(slurmPoll) ? Verdict.PASS : Verdict.MISS;
  }

  /**
   * The floor's line: the floor ({@link FloorScheduler}: the calls every pod needs and nothing
   * else) measured against both targets as if it were the pods. A floor that misses a target shows
   * the target out of reach on this machine for any implementation with a workflow per pod; the
   * pods' share of the floor shows how much of what is reachable Tandem reaches. A paced run
   * ({@code offer}) measures no throughput, so its floor/raw is not judged.
   */
  public static String floorLine(Run pods, Run raw, Run floor, Offer offer) {
    return String.format(
        Locale.ROOT,
        "floor (required calls only): floor/raw = %.2f, target %.1f %s; p50 floor - raw = %+.1f ms,"
            + " target +%.0f ms %s; pods/floor = %.2f, p50 pods - floor = %+.1f ms",
        floor.perSecond() / raw.perSecond(),
        THROUGHPUT_SHARE,
        reach(throughput(floor, raw, offer)),
        floor.p50() - raw.p50(),
        BIND_P50_SLACK_MS,
        reach(bindLatency(floor, raw)),
        pods.perSecond() / floor.perSecond(),
        pods.p50() - floor.p50());
  }

  /** What a floor's verdict says of a target: the floor meeting it is what makes it reachable. */
  static String reach(Verdict floorVerdict) {
    return switch (floorVerdict) {
      case PASS -> "within reach here";
      case MISS -> "OUT OF REACH here";
      case NO_DATA -> "(floor: no data)";
      case NOT_MEASURED -> "(not measured: paced)";
    };
  }

  /**
   * A paced run's line: how fast each side kept up with the offered rate. A side that kept up
   * finished its last item about its median latency after that item was due; one that reached less
   * than {@link #KEPT_UP_SHARE} of the rate that would give fell behind, so its latencies hold a
   * queue, not only its own path.
   */
  public static String pacedLine(Run pods, Run raw, Offer offer) {
    return String.format(
        Locale.ROOT,
        "paced %s: pods bound %.1f a second (%s), raw jobs RUNNING %.1f a second (%s); the"
            + " throughput target needs a run without --rate",
        offer.describe(),
        pods.perSecond(),
        keptUp(pods, offer),
        raw.perSecond(),
        keptUp(raw, offer));
  }

  /** "kept up" or "FELL BEHIND: latencies include a queue", of a paced run's side. */
  static String keptUp(Run r, Offer offer) {
    if (incomplete(r)) {
      return "lost items";
    }
    double ideal = r.wanted() / (offer.span(r.wanted()).toNanos() / 1e9 + r.p50() / 1e3);
    return r.perSecond() >= KEPT_UP_SHARE * ideal
        ? "kept up"
        : "FELL BEHIND: latencies include a queue";
  }

  /** A run that lost items gives no throughput to compare: some never finished. */
  private static boolean incomplete(Run r) {
    return r.done() == 0 || r.done() < r.wanted() || Double.isNaN(r.perSecond());
  }

  /** {@code what: n/wanted done, x.x per second, p50 .. p99 ..}. */
  public static String describe(String what, Run r) {
    return String.format(
        Locale.ROOT,
        "%-24s %d/%d done, %7.1f per second; latency p50=%8.1f ms  p99=%8.1f ms",
        what,
        r.done(),
        r.wanted(),
        r.perSecond(),
        r.p50(),
        r.p99());
  }
}
