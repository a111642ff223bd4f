package dev.tandem.workflows.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.support.Versions;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.WorkflowExecutionHistory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The recorded histories of {@code Versions.REST_BACKOFF} cover the change. Replay cannot show it:
 * the SDK matches a timer by its place in the history, not its duration, and skips a version marker
 * the code does not ask for, so the old code replays node-rest-v5.json cleanly (as it should: only
 * the waits differ). So this checks the histories themselves: v1 waits the resync interval (10 s in
 * the recording) at rest; v5 carries the version marker and waits up to 8 × that.
 */
class RestHistoriesTest {
  private static List<HistoryEvent> events(String file) throws IOException {
    try (InputStream in = RestHistoriesTest.class.getResourceAsStream("/histories/" + file)) {
      String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return WorkflowExecutionHistory.fromJson(json).getEvents();
    }
  }

  private static long longestTimerSeconds(List<HistoryEvent> events) {
    return events.stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_TIMER_STARTED)
        .mapToLong(e -> e.getTimerStartedEventAttributes().getStartToFireTimeout().getSeconds())
        .max()
        .orElse(0);
  }

  private static boolean hasVersion(List<HistoryEvent> events, String changeId) {
    return events.stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED)
        .map(e -> e.getMarkerRecordedEventAttributes().getDetailsMap().get("changeId"))
        .filter(p -> p != null && p.getPayloadsCount() > 0)
        .anyMatch(p -> p.getPayloads(0).getData().toStringUtf8().contains(changeId));
  }

  @Test
  void beforeTheChangeANodeAtRestWaitsTheResyncInterval() throws IOException {
    List<HistoryEvent> v1 = events("node-rest-v1.json");
    assertFalse(hasVersion(v1, Versions.REST_BACKOFF));
    assertEquals(10, longestTimerSeconds(v1));
  }

  @Test
  void afterItTheWaitBacksOffToEightResyncIntervals() throws IOException {
    List<HistoryEvent> v5 = events("node-rest-v5.json");
    assertTrue(hasVersion(v5, Versions.REST_BACKOFF));
    assertEquals(80, longestTimerSeconds(v5));
    assertTrue(v5.size() < events("node-rest-v1.json").size() / 2, "far fewer events at rest");
  }

  /**
   * {@code Versions.REST_NEWS}: the same node at rest with its pod view resent unchanged every 30
   * s. Before, each resend started the back-off again and no wait passed 20 s; after, the waits
   * grow to 8 × the resync interval as without the resends.
   */
  @Test
  void resentViewsNoLongerKeepTheWaitShort() throws IOException {
    List<HistoryEvent> v10 = events("node-rest-signals-v10.json");
    List<HistoryEvent> v11 = events("node-rest-signals-v11.json");
    assertFalse(hasVersion(v10, Versions.REST_NEWS));
    assertTrue(longestTimerSeconds(v10) < 80, "before: " + longestTimerSeconds(v10));
    assertTrue(hasVersion(v11, Versions.REST_NEWS));
    assertEquals(80, longestTimerSeconds(v11));
  }

  /**
   * {@code Versions.REST_SETTLED}: the same two scenarios recorded after it. One quiet re-read
   * (after 10 s) settles the node at the longest wait less its per-node fraction (74 s of 80 for
   * one node's id, 62 s for the other's), where the doubling waited 20 s.
   */
  @Test
  void afterTheFirstQuietReReadTheNodeWaitsTheLongestAtOnce() throws IOException {
    for (String file : List.of("node-rest-v13.json", "node-rest-signals-v13.json")) {
      List<HistoryEvent> v13 = events(file);
      assertTrue(hasVersion(v13, Versions.REST_SETTLED), file);
      List<Long> waits =
          v13.stream()
              .filter(e -> e.getEventType() == EventType.EVENT_TYPE_TIMER_STARTED)
              .map(e -> e.getTimerStartedEventAttributes().getStartToFireTimeout().getSeconds())
              .toList();
      // With resends (every 30 s) a wait is what is left until the re-read is due, so only the
      // first two say how long: 10 s, then the settled wait (the doubling: 10 s, then 20 s).
      assertEquals(10L, waits.get(0), file + ": " + waits);
      assertTrue(waits.get(1) >= 60, file + ": " + waits);
      assertTrue(longestTimerSeconds(v13) >= 60 && longestTimerSeconds(v13) <= 80, file);
    }
    List<HistoryEvent> v5 = events("node-rest-v5.json");
    assertFalse(hasVersion(v5, Versions.REST_SETTLED));
    assertTrue(
        events("node-rest-v13.json").size() < v5.size() / 2, "fewer events at rest than doubling");
  }
}
