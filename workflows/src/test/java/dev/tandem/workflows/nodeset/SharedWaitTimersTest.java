package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The waits of a NodeSet's and a node's loop share their timers: a wait takes a running timer whose
 * deadline is not after its own. Read from the histories: no timer is started while one with an
 * earlier (or the same) deadline is still running. Without the sharing, every pass that a signal
 * ends would leave its timer running and the next pass start one more, which is what the check
 * counts.
 */
class SharedWaitTimersTest extends WorkflowTestBase {

  @Test
  void noWaitStartsATimerWhileAnEarlierOneRuns() {
    NodeSetWorkflow wf = startNodeSet("tick", spec(1, 3, "a"));
    await("3 ready", 120, () -> allReady(wf, 3));
    env.sleep(Duration.ofMinutes(5));
    wf.specChanged(spec(2, 3, "b"));
    awaitRolled(wf, "b", 3);
    // News for a node at rest, a second apart: each view wakes its loop for a pass.
    PodView pod = nodeStatus("tick-0").pod();
    for (int i = 0; i < 4; i++) {
      node("tick-0").podObserved(pod);
      env.sleep(Duration.ofSeconds(1));
    }
    env.sleep(Duration.ofMinutes(5));
    for (String id :
        List.of(Names.nodeSetWorkflowId(NS, "tick"), Names.nodeWorkflowId(NS, "tick-0"))) {
      List<HistoryEvent> events = client.fetchHistory(id).getEvents();
      assertEquals(0, startedBehindAnEarlierTimer(events), id + ": timers started needlessly");
    }
  }

  /**
   * Timers started while a timer with a deadline not later than the new one's was running (started,
   * not yet fired or cancelled). A timer's deadline is its task's start time plus its timeout, the
   * workflow clock of the task that started it; 5 ms of slack for the clocks' rounding.
   */
  static int startedBehindAnEarlierTimer(List<HistoryEvent> events) {
    Map<String, Long> running = new HashMap<>();
    long taskStart = 0;
    int needless = 0;
    for (HistoryEvent e : events) {
      switch (e.getEventType()) {
        case EVENT_TYPE_WORKFLOW_TASK_STARTED -> taskStart = millis(e);
        case EVENT_TYPE_TIMER_STARTED -> {
          var a = e.getTimerStartedEventAttributes();
          long deadline =
              taskStart
                  + a.getStartToFireTimeout().getSeconds() * 1000
                  + a.getStartToFireTimeout().getNanos() / 1_000_000;
          if (running.values().stream().anyMatch(d -> d + 5 < deadline)) {
            needless++;
          }
          running.put(a.getTimerId(), deadline);
        }
        case EVENT_TYPE_TIMER_FIRED ->
            running.remove(e.getTimerFiredEventAttributes().getTimerId());
        case EVENT_TYPE_TIMER_CANCELED ->
            running.remove(e.getTimerCanceledEventAttributes().getTimerId());
        default -> {}
      }
    }
    return needless;
  }

  private static long millis(HistoryEvent e) {
    return e.getEventTime().getSeconds() * 1000 + e.getEventTime().getNanos() / 1_000_000;
  }

  static long count(List<HistoryEvent> events, EventType type) {
    return events.stream().filter(e -> e.getEventType() == type).count();
  }
}
