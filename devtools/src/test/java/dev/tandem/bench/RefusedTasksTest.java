package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowTaskFailedCause;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.WorkflowTaskFailedEventAttributes;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RefusedTasksTest {
  @Test
  void aRefusedCompletionIsCountedByItsCauseAndATimedOutTaskAsTimedOut() {
    HistoryEvent refused =
        HistoryEvent.newBuilder()
            .setEventType(EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)
            .setWorkflowTaskFailedEventAttributes(
                WorkflowTaskFailedEventAttributes.newBuilder()
                    .setCause(WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND))
            .build();
    HistoryEvent timedOut =
        HistoryEvent.newBuilder()
            .setEventType(EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT)
            .build();
    HistoryEvent completed =
        HistoryEvent.newBuilder()
            .setEventType(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
            .build();

    assertEquals("UNHANDLED_COMMAND", RefusedTasks.cause(refused));
    assertEquals("timed out", RefusedTasks.cause(timedOut));
    assertNull(RefusedTasks.cause(completed));
  }

  @Test
  void aCountSaysHowManyPodsHadAFailedTaskAndWhichHistoriesWereUnreadable() {
    RefusedTasks.Count c =
        new RefusedTasks.Count(
            200, 1, List.of("bench-a-7", "bench-a-9"), Map.of("UNHANDLED_COMMAND", 3));

    assertEquals(3, c.tasks());
    assertEquals(
        "  measured: 2 of 200 pods, 3 tasks {UNHANDLED_COMMAND=3}; 1 histories could not be read",
        c.describe("measured"));
  }
}
