package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Timestamp;
import io.temporal.api.taskqueue.v1.PollerInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkerPresenceTest {
  private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");

  private static PollerInfo poller(String id, Duration ago) {
    Instant t = NOW.minus(ago);
    return PollerInfo.newBuilder()
        .setIdentity(id)
        .setLastAccessTime(Timestamp.newBuilder().setSeconds(t.getEpochSecond()))
        .build();
  }

  @Test
  void pollersOlderThanNinetySecondsAreGoneAndTheNewestIsNamed() {
    WorkerPresence p =
        WorkerPresence.of(
            List.of(poller("old@a", Duration.ofMinutes(4)), poller("w@b", Duration.ofSeconds(130))),
            NOW);
    assertEquals(WorkerPresence.State.GONE, p.state());
    assertEquals(
        "no Tandem worker is polling task queue \"tandem\" at t:7233 (last poll: 2m ago by w@b):"
            + " start one (tandem worker, or tandem dev), or check the worker Deployment",
        p.noWorker("t:7233"));
  }

  @Test
  void aPollerSeenWithinNinetySecondsIsPolling() {
    assertEquals(
        WorkerPresence.State.POLLING,
        WorkerPresence.of(List.of(poller("w", Duration.ofSeconds(90))), NOW).state());
    assertEquals(
        WorkerPresence.State.GONE,
        WorkerPresence.of(List.of(poller("w", Duration.ofSeconds(91))), NOW).state());
    assertEquals(WorkerPresence.State.GONE, WorkerPresence.of(List.of(), NOW).state());
  }

  @Test
  void theDeadlineMessageNamesAtMostThreePollersNewestFirstAndClampsClockSkew() {
    WorkerPresence p =
        WorkerPresence.of(
            List.of(
                poller("a", Duration.ofSeconds(30)),
                poller("ahead", Duration.ofSeconds(-5)),
                poller("b", Duration.ofSeconds(3)),
                poller("c", Duration.ofSeconds(60))),
            NOW);
    assertEquals(
        "no answer within 5s for node/default/x from the Tandem worker polling task queue"
            + " \"tandem\" at t:1 (ahead, last poll 0s ago; b, last poll 3s ago; a, last poll 30s"
            + " ago; and 1 more): it may be stuck or overloaded; check its log and /readyz, or"
            + " retry with a longer --query-timeout",
        p.noAnswer("t:1", "node/default/x", Duration.ofSeconds(5)));
  }

  @Test
  void durationsFormatToTheLargestWholeUnit() {
    assertEquals("750ms", Durations.format(Duration.ofMillis(750)));
    assertEquals("0s", Durations.format(Duration.ZERO));
    assertEquals("5s", Durations.format(Duration.ofSeconds(5)));
    assertEquals("119s", Durations.format(Duration.ofSeconds(119)));
    assertEquals("2m", Durations.format(Duration.ofSeconds(150)));
    assertEquals("3h", Durations.format(Duration.ofMinutes(200)));
  }
}
