package dev.tandem.workflows.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.PodView;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The pod workflow's search attributes: one upsert per workflow task, carrying every value that
 * changed in it, and the last values are the ones a pod's visibility shows.
 */
class BatchedSearchAttributesTest extends ScheduleTestBase {

  @Test
  void aBoundThenDeletedPodUpsertsOncePerTaskWithTheTasksLastValues() {
    PodScheduleWorkflow wf = running("sa");
    long id = world.jobOf("uid-sa");
    world.pods.remove("sa");
    wf.podObserved(PodView.absent("sa"));
    assertEquals(SchedulePhase.DONE, result(wf));

    List<HistoryEvent> events = history("sa");
    List<Map<String, String>> upserts = new ArrayList<>();
    int tasks = 0;
    for (HistoryEvent e : events) {
      if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        tasks++;
      }
      if (e.getEventType() == EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES) {
        Map<String, Payload> fields =
            e.getUpsertWorkflowSearchAttributesEventAttributes()
                .getSearchAttributes()
                .getIndexedFieldsMap();
        Map<String, String> values = new TreeMap<>();
        fields.forEach((k, v) -> values.put(k, v.getData().toStringUtf8().replace("\"", "")));
        upserts.add(values);
      }
    }
    assertTrue(upserts.size() <= tasks, tasks + " tasks: " + upserts);
    // One per change would be nine (validating, submitting, pending, job id, binding, ...).
    assertEquals(3, upserts.size(), "where it waited twice and ended: " + upserts);
    assertEquals(
        Map.of(Names.SA_POD, "default/sa", Names.SA_PHASE, "pending", Names.SA_JOB_ID, "" + id),
        upserts.get(0));
    assertEquals(Map.of(Names.SA_PHASE, "running", Names.SA_K8S_NODE, "k1"), upserts.get(1));
    assertEquals(Map.of(Names.SA_PHASE, "done"), upserts.get(upserts.size() - 1));
  }
}
