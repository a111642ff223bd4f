package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CounterDiffTest {
  @Test
  void seriesThatDifferOnlyInTheTaskQueueAreSummed() {
    String scrape =
        "# HELP x\n"
            + "temporal_workflow_task_schedule_to_start_latency_seconds_sum{namespace=\"default\","
            + "task_queue=\"tandem\",worker_type=\"WorkflowWorker\",} 1.5\n"
            + "temporal_workflow_task_schedule_to_start_latency_seconds_sum{namespace=\"default\","
            + "task_queue=\"worker-1:sticky\",worker_type=\"WorkflowWorker\",} 2.0\n";
    assertEquals(Map.of("wft_wait_s", 3.5), CounterDiff.parse(scrape));
  }
}
