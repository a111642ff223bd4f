package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The NodeSet writes its status without waiting for the write: a slow API server no longer holds
 * the loop, so a rolling update goes on while a write is unanswered. One write is in flight at a
 * time, and the status as it is when the API answers again is what lands. A write that fails is
 * tried again on a later pass.
 */
class NodeSetStatusWriteTest extends WorkflowTestBase {

  @Test
  void aRollingUpdateGoesOnWhileTheStatusWriteIsUnanswered() {
    NodeSetWorkflow wf = startNodeSet("held", spec(1, 3, "a"));
    await("3 ready", 120, () -> allReady(wf, 3));
    await("the status shows 3 ready", 60, () -> written("held", 3, "a"));
    String before = status("held").updateRevision();

    cluster.holdStatusWrites(true);
    try {
      wf.specChanged(spec(2, 3, "b"));
      // One node at a time: each next update needs a NodeSet pass after the last node's report.
      awaitRolled(wf, "b", 3);
      assertEquals(
          before,
          status("held").updateRevision(),
          "the rollout finished while no status write was answered");
    } finally {
      cluster.holdStatusWrites(false);
    }
    await("the status shows the rollout", 120, () -> written("held", 3, "b"));

    List<HistoryEvent> events =
        client.fetchHistory(Names.nodeSetWorkflowId(NS, "held")).getEvents();
    long markers =
        events.stream()
            .filter(e -> e.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED)
            .filter(e -> e.toString().contains("KubeWriteNodeSetStatus"))
            .count();
    assertEquals(0, markers, "no status write inside a workflow task");
    assertEquals(1, mostWritesInFlight(events), "one status write in flight at a time");
  }

  @Test
  void aFailedWriteIsTriedAgainUntilItLands() {
    cluster.kubeDown(true);
    NodeSetWorkflow wf = startNodeSet("later", spec(1, 1, "a"));
    env.sleep(java.time.Duration.ofSeconds(5));
    cluster.kubeDown(false);
    await("1 ready", 120, () -> allReady(wf, 1));
    await("the status written after the outage", 60, () -> written("later", 1, "a"));
  }

  /** The most status writes scheduled and not yet closed at any point of the history. */
  private static int mostWritesInFlight(List<HistoryEvent> events) {
    Set<Long> open = new HashSet<>();
    int most = 0;
    for (HistoryEvent e : events) {
      switch (e.getEventType()) {
        case EVENT_TYPE_ACTIVITY_TASK_SCHEDULED -> {
          if (e.getActivityTaskScheduledEventAttributes()
              .getActivityType()
              .getName()
              .equals("KubeWriteNodeSetStatus")) {
            open.add(e.getEventId());
          }
        }
        case EVENT_TYPE_ACTIVITY_TASK_COMPLETED ->
            open.remove(e.getActivityTaskCompletedEventAttributes().getScheduledEventId());
        case EVENT_TYPE_ACTIVITY_TASK_FAILED ->
            open.remove(e.getActivityTaskFailedEventAttributes().getScheduledEventId());
        case EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT ->
            open.remove(e.getActivityTaskTimedOutEventAttributes().getScheduledEventId());
        default -> {}
      }
      most = Math.max(most, open.size());
    }
    return most;
  }

  private NodeSetStatusView status(String name) {
    return cluster.status(new NodeSetRef(NS, name).toString());
  }

  private boolean written(String name, int ready, String revision) {
    NodeSetStatusView st = status(name);
    return st != null
        && st.readyReplicas() == ready
        && st.updatedReplicas() == ready
        && revision.equals(st.updateRevision());
  }
}
