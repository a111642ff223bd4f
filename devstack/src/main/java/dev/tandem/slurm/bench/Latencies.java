package dev.tandem.slurm.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Latency samples in milliseconds and the one-line summary every Tandem benchmark prints. */
public final class Latencies {
  private Latencies() {}

  /** Nearest-rank percentile of an ascending list (p in 0..100). */
  public static double percentile(List<Double> sorted, double p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }

  /** {@code what n=.. p50=.. p99=.. min max mean}, or {@code n=0} when nothing was measured. */
  public static String summary(String what, List<Double> ms) {
    if (ms.isEmpty()) {
      return String.format(Locale.ROOT, "%-24s n=0", what);
    }
    List<Double> s = new ArrayList<>(ms);
    s.sort(null);
    double mean = s.stream().mapToDouble(Double::doubleValue).average().orElse(0);
    return String.format(
        Locale.ROOT,
        "%-24s n=%-4d p50=%8.1f ms  p99=%8.1f ms  min=%7.1f  max=%8.1f  mean=%8.1f",
        what,
        s.size(),
        percentile(s, 50),
        percentile(s, 99),
        s.get(0),
        s.get(s.size() - 1),
        mean);
  }
}
