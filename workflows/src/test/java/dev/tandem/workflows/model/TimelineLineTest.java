package dev.tandem.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.workflows.remediation.RemediationStep;
import dev.tandem.workflows.remediation.RemediationTimelineEntry;
import dev.tandem.workflows.schedule.GroupPhase;
import dev.tandem.workflows.schedule.GroupTimelineEntry;
import dev.tandem.workflows.schedule.SchedulePhase;
import dev.tandem.workflows.schedule.ScheduleTimelineEntry;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The timeline records share {@link TimelineLine} for the CLI only: its stage label is not a field
 * of theirs, so what Temporal stores (state, query answers) and what {@code tandem history -o json}
 * prints stays the four record components.
 */
class TimelineLineTest {
  private static final ObjectMapper MAPPER = JacksonJsonPayloadConverter.newDefaultObjectMapper();
  private static final Instant AT = Instant.parse("2026-11-29T22:00:00Z");

  @Test
  void eachTimelineSerializesItsComponentsOnlyAndLabelsItsStage() throws Exception {
    List<TimelineLine> lines =
        List.of(
            new TimelineEntry(AT, NodePhase.READY, "ready", "slurmd registered"),
            new ScheduleTimelineEntry(AT, SchedulePhase.RUNNING, "bound", "on k8s-1"),
            new GroupTimelineEntry(AT, GroupPhase.RUNNING, "bound", "3 members"),
            new RemediationTimelineEntry(AT, RemediationStep.values()[0], "started", "xid 79"));
    for (TimelineLine l : lines) {
      JsonNode json = MAPPER.readTree(MAPPER.writeValueAsString(l));
      Set<String> fields = new TreeSet<>();
      json.fieldNames().forEachRemaining(fields::add);
      String stage = l instanceof RemediationTimelineEntry ? "step" : "phase";
      assertEquals(new TreeSet<>(List.of("at", stage, "event", "detail")), fields, l.toString());
      assertEquals(json.get(stage).asText(), enumName(l), l.toString());
      assertEquals(MAPPER.readValue(json.toString(), l.getClass()), l);
    }
    assertEquals(NodePhase.READY.label(), lines.get(0).stageLabel());
    assertEquals(SchedulePhase.RUNNING.label(), lines.get(1).stageLabel());
    assertEquals(GroupPhase.RUNNING.label(), lines.get(2).stageLabel());
    assertEquals(RemediationStep.values()[0].label(), lines.get(3).stageLabel());
    assertNull(new ScheduleTimelineEntry(AT, null, "seen", null).stageLabel());
  }

  private static String enumName(TimelineLine l) {
    if (l instanceof TimelineEntry e) {
      return e.phase().name();
    } else if (l instanceof ScheduleTimelineEntry e) {
      return e.phase().name();
    } else if (l instanceof GroupTimelineEntry e) {
      return e.phase().name();
    }
    return ((RemediationTimelineEntry) l).step().name();
  }
}
