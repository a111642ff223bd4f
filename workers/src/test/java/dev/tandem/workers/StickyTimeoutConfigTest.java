package dev.tandem.workers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code TANDEM_STICKY_TIMEOUT}, {@code TANDEM_WORKFLOW_CACHE} and the workflow task slots and
 * pollers reach the SDK's options.
 */
class StickyTimeoutConfigTest {
  private static final TandemConfig.Versioning VERSION =
      new TandemConfig.Versioning("tandem", "test", false);

  private static TandemConfig.Worker worker(Map<String, String> env) {
    return TandemConfig.from(new Env(env)).worker();
  }

  @Test
  void defaultsToFiveSecondsSetExplicitly() {
    TandemConfig.Worker w = worker(Map.of());
    assertEquals(Duration.ofSeconds(5), w.stickyTimeout());
    assertEquals(
        10_000, TandemWorker.workerOptions(w, VERSION).getDefaultDeadlockDetectionTimeout());
    assertEquals(
        Duration.ofSeconds(5),
        TandemWorker.workerOptions(w, VERSION).getStickyQueueScheduleToStartTimeout());
  }

  @Test
  void isConfigurableAndZeroIsAccepted() {
    Map<String, String> env = new HashMap<>();
    env.put("TANDEM_STICKY_TIMEOUT", "2s");
    assertEquals(
        Duration.ofSeconds(2),
        TandemWorker.workerOptions(worker(env), VERSION).getStickyQueueScheduleToStartTimeout());
    env.put("TANDEM_STICKY_TIMEOUT", "0s");
    assertEquals(Duration.ZERO, worker(env).stickyTimeout());
  }

  @Test
  void aBadValueNamesTheVariable() {
    ConfigException e =
        assertThrows(ConfigException.class, () -> worker(Map.of("TANDEM_STICKY_TIMEOUT", "soon")));
    assertEquals(
        "TANDEM_STICKY_TIMEOUT=\"soon\" is not a duration like 500ms, 2s, 5m or 1h",
        e.getMessage());
  }

  @Test
  void theWorkflowCacheHoldsAFleetAndItsThreadsByDefault() {
    TandemConfig.Worker w = worker(Map.of());
    assertEquals(6000, w.workflowCache());
    var o = TandemWorker.factoryOptions(w).build();
    assertEquals(6000, o.getWorkflowCacheSize());
    assertEquals(12000, o.getMaxWorkflowThreadCount());
    assertEquals(
        200,
        TandemWorker.factoryOptions(worker(Map.of("TANDEM_WORKFLOW_CACHE", "200")))
            .build()
            .getWorkflowCacheSize());
    assertThrows(ConfigException.class, () -> worker(Map.of("TANDEM_WORKFLOW_CACHE", "5")));
  }

  @Test
  void workflowTasksGetTheSdksSlotsAndTenPollersByDefault() {
    var o = TandemWorker.workerOptions(worker(Map.of()), VERSION);
    assertEquals(200, o.getMaxConcurrentWorkflowTaskExecutionSize());
    assertEquals(10, o.getMaxConcurrentWorkflowTaskPollers());
    var set =
        TandemWorker.workerOptions(
            worker(
                Map.of(
                    "TANDEM_MAX_CONCURRENT_WORKFLOW_TASKS", "40",
                    "TANDEM_WORKFLOW_TASK_POLLERS", "4")),
            VERSION);
    assertEquals(40, set.getMaxConcurrentWorkflowTaskExecutionSize());
    assertEquals(4, set.getMaxConcurrentWorkflowTaskPollers());
    assertThrows(ConfigException.class, () -> worker(Map.of("TANDEM_WORKFLOW_TASK_POLLERS", "1")));
  }
}
