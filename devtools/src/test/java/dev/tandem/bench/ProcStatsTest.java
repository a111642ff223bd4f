package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcStatsTest {
  private static final String BEFORE =
      """
      # HELP tandem_activity_started_total x
      tandem_activity_started_total{activity="GetPod",worker="w"} 10.0
      tandem_activity_started_total{activity="SlurmNode",worker="w"} 4.0
      tandem_activity_started_total_other{activity="GetPod"} 99.0
      temporal_workflow_task_execution_latency_seconds_count{namespace="default",workflow_type="NodeLifecycle"} 100.0
      temporal_workflow_task_execution_latency_seconds_count{namespace="default",workflow_type="NodeSet"} 7.0
      temporal_workflow_task_execution_latency_seconds_count{namespace="default",workflow_type="NodeSet",x="y"} 3.0
      """;

  private static final String AFTER =
      """
      tandem_activity_started_total{activity="GetPod",worker="w"} 40.0
      tandem_activity_started_total{activity="SlurmNode",worker="w"} 4.0
      tandem_activity_started_total{activity="ListPods",worker="w"} 2.0
      temporal_workflow_task_execution_latency_seconds_count{namespace="default",workflow_type="NodeLifecycle"} 160.0
      temporal_workflow_task_execution_latency_seconds_count{namespace="default",workflow_type="NodeSet"} 14.0
      temporal_workflow_task_execution_latency_seconds_count{namespace="default",workflow_type="NodeSet",x="y"} 6.0
      """;

  @Test
  void seriesAreSummedByTheLabelsValueAndLongerNamesLeftOut() {
    assertEquals(
        Map.of("GetPod", 10.0, "SlurmNode", 4.0),
        ProcStats.byLabel(BEFORE, "tandem_activity_started_total", "activity"));
    assertEquals(
        Map.of("NodeLifecycle", 100.0, "NodeSet", 10.0),
        ProcStats.byLabel(
            BEFORE, "temporal_workflow_task_execution_latency_seconds_count", "workflow_type"));
  }

  @Test
  void theWindowsRatesComeLargestFirstAndUnchangedCountersAreLeftOut() {
    Map<String, Double> rates =
        FleetBench.perMinute(
            ProcStats.byLabel(BEFORE, "tandem_activity_started_total", "activity"),
            ProcStats.byLabel(AFTER, "tandem_activity_started_total", "activity"),
            2.0);
    assertEquals(List.of("GetPod", "ListPods"), List.copyOf(rates.keySet()));
    assertEquals(15.0, rates.get("GetPod"));
    assertEquals(1.0, rates.get("ListPods"));
  }
}
