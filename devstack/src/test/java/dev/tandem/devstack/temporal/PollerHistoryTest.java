package dev.tandem.devstack.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.slurm.testing.MutableClock;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.PollerInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PollerHistoryTest {
  private static final PollerHistory.Queue WF =
      new PollerHistory.Queue("default", "tandem", TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW);
  private static final PollerHistory.Queue ACT =
      new PollerHistory.Queue("default", "tandem", TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY);

  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final PollerHistory history = new PollerHistory(clock);

  @Test
  void listsEachIdentityOnceWithItsLastAccessMostRecentFirst() {
    history.touch(WF, "a");
    clock.advance(Duration.ofSeconds(10));
    history.touch(WF, "b");
    clock.advance(Duration.ofSeconds(10));
    history.touch(WF, "a");

    List<PollerInfo> p = history.pollers(WF);
    assertEquals(List.of("a", "b"), p.stream().map(PollerInfo::getIdentity).toList());
    assertEquals(
        Instant.parse("2026-01-01T00:00:20Z").getEpochSecond(),
        p.get(0).getLastAccessTime().getSeconds());
    assertEquals(
        Instant.parse("2026-01-01T00:00:10Z").getEpochSecond(),
        p.get(1).getLastAccessTime().getSeconds());
  }

  @Test
  void queuesAndTypesAreSeparateAndEmptyIdentitiesAreNotRecorded() {
    history.touch(WF, "w");
    history.touch(ACT, "");
    assertEquals(List.of(), history.pollers(ACT));
    assertEquals(
        List.of(),
        history.pollers(
            new PollerHistory.Queue("other", "tandem", TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)));
    assertEquals(1, history.pollers(WF).size());
  }

  @Test
  void aPollerIsForgottenFiveMinutesAfterItsLastAccess() {
    history.touch(WF, "gone");
    clock.advance(Duration.ofMinutes(4));
    history.touch(WF, "alive");
    clock.advance(Duration.ofMinutes(1));
    assertEquals(2, history.pollers(WF).size(), "exactly 5 minutes: still listed");
    clock.advance(Duration.ofSeconds(1));
    assertEquals(
        List.of("alive"), history.pollers(WF).stream().map(PollerInfo::getIdentity).toList());
  }

  @Test
  void keepsAtMostTheNewestThousandIdentitiesPerQueue() {
    for (int i = 0; i < PollerHistory.MAX_PER_QUEUE + 5; i++) {
      history.touch(WF, "w" + i);
    }
    List<String> ids = history.pollers(WF).stream().map(PollerInfo::getIdentity).toList();
    assertEquals(PollerHistory.MAX_PER_QUEUE, ids.size());
    assertEquals(false, ids.contains("w0"));
    assertEquals(true, ids.contains("w" + (PollerHistory.MAX_PER_QUEUE + 4)));
  }
}
