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

  /** A verdict; no samples is never a pass (fail closed). */
  public enum Verdict {
    PASS,
    MISS,
    NO_DATA
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
   * pods' share of the floor shows how much of what is reachable Tandem reaches.
   */
  public static String floorLine(Run pods, Run raw, Run floor) {
    return String.format(
        Locale.ROOT,
        "floor (required calls only): floor/raw = %.2f, target %.1f %s; p50 floor - raw = %+.1f ms,"
            + " target +%.0f ms %s; pods/floor = %.2f, p50 pods - floor = %+.1f ms",
        floor.perSecond() / raw.perSecond(),
        THROUGHPUT_SHARE,
        reach(throughput(floor, raw)),
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
    };
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
