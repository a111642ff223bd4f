package dev.tandem.bench;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads the worker's {@code tandem_preemption_to_eviction_seconds} from a Prometheus scrape: count,
 * mean, max, and the published quantiles when the worker publishes any.
 */
final class WorkerHistogram {
  static final String NAME = "tandem_preemption_to_eviction_seconds";

  private WorkerHistogram() {}

  static String describe(String scrape) {
    double count = 0;
    double sum = 0;
    double max = Double.NaN;
    Map<String, Double> quantiles = new TreeMap<>();
    boolean found = false;
    for (String line : scrape.split("\n")) {
      if (line.isBlank() || line.startsWith("#") || !line.startsWith(NAME)) {
        continue;
      }
      int sp = line.lastIndexOf(' ');
      String series = line.substring(0, sp).trim();
      double v;
      try {
        v = Double.parseDouble(line.substring(sp + 1).trim());
      } catch (NumberFormatException e) {
        continue;
      }
      String base = series.contains("{") ? series.substring(0, series.indexOf('{')) : series;
      found = true;
      switch (base.substring(NAME.length())) {
        case "_count" -> count += v;
        case "_sum" -> sum += v;
        case "_max" -> max = Double.isNaN(max) ? v : Math.max(max, v);
        case "" -> {
          int q = series.indexOf("quantile=\"");
          if (q >= 0) {
            quantiles.put(series.substring(q + 10, series.indexOf('"', q + 10)), v);
          }
        }
        default -> {}
      }
    }
    if (!found) {
      return "worker " + NAME + ": absent from /metrics";
    }
    StringBuilder b =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "worker %s: count=%.0f mean=%.3f s max=%.3f s",
                NAME,
                count,
                count > 0 ? sum / count : Double.NaN,
                max));
    quantiles.forEach((q, v) -> b.append(String.format(Locale.ROOT, " q%s=%.3f s", q, v)));
    return b.toString();
  }
}
