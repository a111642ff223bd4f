package dev.tandem.workers;

import dev.tandem.workflows.remediation.RemediationMetrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The worker's {@code /metrics} registry: Tandem's {@code tandem_*} meters, each with HELP text,
 * and the Temporal SDK's {@code temporal_*} trimmed to what an operator uses
 * (docs/configuration.md, "Metrics"), so that a scrape stays small however many workflows and
 * activity types run.
 *
 * <ul>
 *   <li>The workflows' meters (Temporal's metrics scope, which has no descriptions) get theirs from
 *       {@link RemediationMetrics#HELP}; every other Tandem meter carries its own.
 *   <li>Unless {@code temporalFull}, the SDK's latency timers lose their per-type tags {@code
 *       workflow_type}, {@code activity_type}, {@code query_type}, {@code signal_name} and {@code
 *       update_name} (the series of all types add up into one) and are summaries (count, sum, max)
 *       instead of histograms of ~70 buckets each, except {@link #HISTOGRAMS}, kept as histograms
 *       with the {@link #BUCKETS} buckets. The SDK's counters keep their types: they are few series
 *       each (a failure counter exists only for a type that failed) and say which activity or
 *       workflow fails.
 * </ul>
 */
public final class TandemMetrics {
  private TandemMetrics() {}

  /**
   * SDK per-type tags whose values multiply a timer's series (one per workflow or activity type).
   */
  static final List<String> TYPE_TAGS =
      List.of("workflow_type", "activity_type", "query_type", "signal_name", "update_name");

  /**
   * SDK latencies kept as histograms: tasks waiting for a worker (is it keeping up?) and activity
   * run time (the dashboard's p99).
   */
  static final Set<String> HISTOGRAMS =
      Set.of(
          "temporal_workflow_task_schedule_to_start_latency",
          "temporal_activity_schedule_to_start_latency",
          "temporal_activity_execution_latency");

  /** Their buckets: from "at once" to "the worker is far behind". */
  static final Duration[] BUCKETS = {
    Duration.ofMillis(10),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
    Duration.ofSeconds(30),
    Duration.ofSeconds(60)
  };

  /** The registry {@code /metrics} serves; {@code temporalFull}: every SDK series as it comes. */
  public static PrometheusMeterRegistry registry(boolean temporalFull) {
    PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    r.config().meterFilter(workflowHelp());
    if (!temporalFull) {
      r.config().meterFilter(dropTimerTypeTags()).meterFilter(sdkLatencies());
    }
    return r;
  }

  private static boolean temporal(Meter.Id id) {
    return id.getName().startsWith("temporal_");
  }

  static MeterFilter workflowHelp() {
    return new MeterFilter() {
      @Override
      public Meter.Id map(Meter.Id id) {
        String help = RemediationMetrics.HELP.get(id.getName());
        if (help == null || id.getDescription() != null) {
          return id;
        }
        return new Meter.Id(
            id.getName(), Tags.of(id.getTags()), id.getBaseUnit(), help, id.getType());
      }
    };
  }

  static MeterFilter dropTimerTypeTags() {
    return new MeterFilter() {
      @Override
      public Meter.Id map(Meter.Id id) {
        if (!temporal(id) || id.getType() != Meter.Type.TIMER) {
          return id;
        }
        List<Tag> kept =
            id.getTags().stream().filter(t -> !TYPE_TAGS.contains(t.getKey())).toList();
        return kept.size() == id.getTags().size() ? id : id.replaceTags(kept);
      }
    };
  }

  static MeterFilter sdkLatencies() {
    return new MeterFilter() {
      @Override
      public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig c) {
        if (!temporal(id) || id.getType() != Meter.Type.TIMER) {
          return c;
        }
        if (!HISTOGRAMS.contains(id.getName())) {
          return DistributionStatisticConfig.builder()
              .percentilesHistogram(false)
              .serviceLevelObjectives()
              .percentiles()
              .build()
              .merge(c);
        }
        double[] slo = new double[BUCKETS.length];
        for (int i = 0; i < BUCKETS.length; i++) {
          slo[i] = BUCKETS[i].toNanos();
        }
        return DistributionStatisticConfig.builder()
            .percentilesHistogram(false)
            .serviceLevelObjectives(slo)
            .build()
            .merge(c);
      }
    };
  }
}
