package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class WorkerHistogramTest {
  @Test
  void countMeanMaxAndQuantilesFromAScrape() {
    String scrape =
        """
        # HELP tandem_preemption_to_eviction_seconds Slurm preemption to pod eviction
        # TYPE tandem_preemption_to_eviction_seconds summary
        tandem_preemption_to_eviction_seconds{quantile="0.5"} 1.25
        tandem_preemption_to_eviction_seconds{quantile="0.99"} 2.5
        tandem_preemption_to_eviction_seconds_count 4.0
        tandem_preemption_to_eviction_seconds_sum 6.0
        tandem_preemption_to_eviction_seconds_max 2.5
        tandem_other_total 9.0
        """;
    assertEquals(
        "worker tandem_preemption_to_eviction_seconds: count=4 mean=1.500 s max=2.500 s"
            + " q0.5=1.250 s q0.99=2.500 s",
        WorkerHistogram.describe(scrape));
  }

  @Test
  void countsOfSeveralLabelSetsAreAdded() {
    String scrape =
        """
        tandem_preemption_to_eviction_seconds_count{pool="a"} 1
        tandem_preemption_to_eviction_seconds_count{pool="b"} 3
        tandem_preemption_to_eviction_seconds_sum{pool="a"} 1
        tandem_preemption_to_eviction_seconds_sum{pool="b"} 3
        """;
    assertEquals(
        "worker tandem_preemption_to_eviction_seconds: count=4 mean=1.000 s max=NaN s",
        WorkerHistogram.describe(scrape));
  }

  @Test
  void anAbsentMetricIsSaidSo() {
    assertEquals(
        "worker tandem_preemption_to_eviction_seconds: absent from /metrics",
        WorkerHistogram.describe("tandem_activity_started_total 3\n"));
  }
}
