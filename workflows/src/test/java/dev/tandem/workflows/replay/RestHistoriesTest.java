package dev.tandem.workflows.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.api.enums.v1.EventType;
import io.temporal.common.WorkflowExecutionHistory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The baseline history of a node at rest (node-rest, recorded with resync 10 s and rest maximum 80
 * s) shows the rest timer's rule, which replay cannot check: the SDK matches a timer by its place
 * in the history, not its duration. At rest the first wait is the resync interval; one quiet
 * re-read settles the node at the longest wait less its per-node fraction (at most a quarter).
 */
class RestHistoriesTest {
  private static final String FILE = "node-rest-0.1.0.json";

  private static List<Long> timerSeconds(String file) throws IOException {
    try (InputStream in = RestHistoriesTest.class.getResourceAsStream("/histories/" + file)) {
      String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return WorkflowExecutionHistory.fromJson(json).getEvents().stream()
          .filter(e -> e.getEventType() == EventType.EVENT_TYPE_TIMER_STARTED)
          .map(e -> e.getTimerStartedEventAttributes().getStartToFireTimeout().getSeconds())
          .toList();
    }
  }

  @Test
  void afterOneQuietReReadTheNodeWaitsTheLongestLessItsFraction() throws IOException {
    List<Long> waits = timerSeconds(FILE);
    assertEquals(10L, waits.get(0), "the first wait at rest is the resync interval: " + waits);
    long settled = waits.get(1);
    assertTrue(settled >= 60 && settled <= 80, "then the settled wait: " + waits);
    assertTrue(waits.stream().allMatch(w -> w <= 80), "never past the rest maximum: " + waits);
    long settledWaits = waits.stream().filter(w -> w == settled).count();
    assertTrue(settledWaits >= 6, "five minutes ready and five drained, settled: " + waits);
  }
}
