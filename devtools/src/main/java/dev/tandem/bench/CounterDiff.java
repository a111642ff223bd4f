package dev.tandem.bench;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one part of a benchmark made the worker do, per item: the growth of the worker's counters
 * (Tandem's activity attempts by type and signals by kind, the SDK's workflow tasks, replays and
 * sticky-cache misses) between two scrapes of its {@code /metrics}, divided by the items of the
 * part. A cost per pod that the rates hide: which calls, how many tasks.
 */
final class CounterDiff {
  /** Series worth a line: counters whose growth says what work a pod cost. */
  private static final List<String> PREFIXES =
      List.of(
          "tandem_activity_started_total",
          "tandem_signals_total",
          "temporal_workflow_task_execution_latency_seconds_count",
          "temporal_workflow_task_replay_latency_seconds_count",
          "temporal_sticky_cache_miss_total",
          "temporal_workflow_task_execution_failed_total",
          "temporal_request_total",
          "temporal_local_activity_execution_latency_seconds_sum",
          "temporal_local_activity_execution_latency_seconds_count",
          "temporal_workflow_task_schedule_to_start_latency_seconds_sum",
          "temporal_workflow_task_execution_latency_seconds_sum");

  private final URI metrics;

  CounterDiff(URI metrics) {
    this.metrics = metrics;
  }

  /** The selected series now, by their whole name with labels; empty if unreachable. */
  Map<String, Double> take() {
    if (metrics == null) {
      return Map.of();
    }
    try {
      return parse(ProcStats.scrape(metrics));
    } catch (RuntimeException e) {
      return Map.of();
    }
  }

  static Map<String, Double> parse(String scrape) {
    Map<String, Double> m = new HashMap<>();
    for (String line : scrape.split("\n")) {
      if (line.startsWith("#") || PREFIXES.stream().noneMatch(line::startsWith)) {
        continue;
      }
      int sp = line.lastIndexOf(' ');
      try {
        // Summed: series that differ only in what shorten() drops (the sticky and the normal task
        // queue) are one figure, not the last one read.
        m.merge(
            shorten(line.substring(0, sp)),
            Double.parseDouble(line.substring(sp + 1)),
            Double::sum);
      } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
        // not a sample line
      }
    }
    return m;
  }

  /** The series that grew, most per item first, as one line. */
  static String describe(String part, Map<String, Double> a, Map<String, Double> b, int items) {
    if (a.isEmpty() || b.isEmpty() || items == 0) {
      return part + " worker counters: not read";
    }
    List<Map.Entry<String, Double>> grew = new ArrayList<>();
    for (Map.Entry<String, Double> e : b.entrySet()) {
      double d = e.getValue() - a.getOrDefault(e.getKey(), 0.0);
      if (d > 0) {
        grew.add(Map.entry(e.getKey(), d / items));
      }
    }
    grew.sort((x, y) -> Double.compare(y.getValue(), x.getValue()));
    StringBuilder s = new StringBuilder(part).append(" per item:");
    for (Map.Entry<String, Double> e : grew) {
      s.append(String.format(Locale.ROOT, " %s=%.2f", e.getKey(), e.getValue()));
    }
    return s.toString();
  }

  /** Drops what every series of a family repeats (namespace, task queue, worker type...). */
  private static String shorten(String series) {
    String s =
        series
            .replace("tandem_activity_started_total", "activity")
            .replace("tandem_signals_total", "signal")
            .replace("temporal_workflow_task_execution_latency_seconds_count", "wft")
            .replace("temporal_workflow_task_replay_latency_seconds_count", "wft_replay")
            .replace("temporal_sticky_cache_miss_total", "sticky_miss")
            .replace("temporal_workflow_task_execution_failed_total", "wft_failed")
            .replace("temporal_request_total", "rpc")
            .replace("temporal_local_activity_execution_latency_seconds_sum", "la_seconds")
            .replace("temporal_local_activity_execution_latency_seconds_count", "la_count")
            .replace("temporal_workflow_task_schedule_to_start_latency_seconds_sum", "wft_wait_s")
            .replace("temporal_workflow_task_execution_latency_seconds_sum", "wft_run_s");
    return s.replaceAll(
            "(namespace|task_queue|worker_type|workflow_type|exception|client_name|query_type"
                + "|status_code)=\"[^\"]*\",?",
            "")
        .replaceAll("(operation|signal_name)=\"none\",?", "")
        .replace(",}", "}")
        .replace("{}", "");
  }
}
