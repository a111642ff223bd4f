package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The NodeSet writes its status with a local activity ({@code Versions.LOCAL_STATUS_WRITE}): no
 * activity task, so its loop no longer waits for a task-queue round trip and a second workflow task
 * per write. A write that fails is tried again on a later pass; the status reaches the resource.
 */
class NodeSetLocalStatusTest extends WorkflowTestBase {

  @Test
  void theStatusIsWrittenWithoutAnActivityTask() {
    NodeSetWorkflow wf = startNodeSet("quick", spec(1, 2, "a"));
    await("2 ready", 120, () -> allReady(wf, 2));
    await("the status shows both ready", 60, () -> statusShowsReady("quick", 2));
    List<HistoryEvent> events =
        client.fetchHistory(Names.nodeSetWorkflowId(NS, "quick")).getEvents();
    long tasks =
        events.stream()
            .filter(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
            .filter(e -> e.toString().contains("KubeWriteNodeSetStatus"))
            .count();
    long writes =
        events.stream()
            .filter(e -> e.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED)
            .filter(e -> e.toString().contains("KubeWriteNodeSetStatus"))
            .count();
    assertEquals(0, tasks, "no status write as an activity task");
    assertTrue(writes >= 1, "status writes recorded as local activities: " + writes);
  }

  @Test
  void aFailedWriteIsTriedAgainUntilItLands() {
    cluster.kubeDown(true);
    NodeSetWorkflow wf = startNodeSet("later", spec(1, 1, "a"));
    env.sleep(java.time.Duration.ofSeconds(5));
    cluster.kubeDown(false);
    await("1 ready", 120, () -> allReady(wf, 1));
    await("the status written after the outage", 60, () -> statusShowsReady("later", 1));
  }

  private boolean statusShowsReady(String name, int ready) {
    var st = cluster.status(new dev.tandem.workflows.model.NodeSetRef(NS, name).toString());
    return st != null && st.readyReplicas() == ready;
  }
}
