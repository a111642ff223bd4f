package dev.tandem.workflows.catalogue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.workflows.schedule.GroupPhase;
import dev.tandem.workflows.schedule.GroupTestBase;
import dev.tandem.workflows.schedule.PodGroupWorkflow;
import dev.tandem.workflows.schedule.PodGroupWorkflowImpl;
import dev.tandem.workflows.schedule.PodRequest;
import dev.tandem.workflows.schedule.PodScheduleWorkflow;
import dev.tandem.workflows.schedule.PodScheduleWorkflowImpl;
import dev.tandem.workflows.schedule.SchedulePhase;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Bad-input catalogue (docs/reliability.md): the signals of a single pod's and of a gang's schedule
 * answer JSON that does not parse, binary, bytes that are not UTF-8 and each missing required
 * member ({@link RawSignals}) with one {@code signal-rejected} entry in the timeline ({@code tandem
 * history}) and one log line, never again on replay; the workflow stays where it was.
 */
class BadScheduleSignalTest extends GroupTestBase {

  @Test
  void podScheduleSignals() throws Exception {
    PodRequest r = request("raw", Map.of(), 30);
    PodScheduleWorkflow wf = schedule(r, TUNING);
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    Map<String, String> examples =
        Map.of(
            "jobObserved", "{\"id\":1,\"name\":\"x\",\"state\":\"PENDING\"}",
            "podObserved", "{\"name\":\"raw\",\"exists\":true}");
    try (RawSignals raws = new RawSignals(client, PodScheduleWorkflowImpl.workflowId(r))) {
      raws.sendAll(
          RawSignals.cases(PodScheduleWorkflow.class, examples),
          () ->
              wf.status().timeline().stream()
                  .filter(t -> t.event().equals("signal-rejected"))
                  .map(t -> t.detail())
                  .toList(),
          () -> env.sleep(Duration.ofSeconds(1)));
      raws.replayLogsNothing(PodScheduleWorkflowImpl.class);
    }
    assertEquals(SchedulePhase.PENDING, wf.status().phase());
  }

  @Test
  void podGroupSignals() throws Exception {
    PodGroupWorkflow wf = join(member("a", 2));
    await("gathering", 10, () -> in(wf, GroupPhase.GATHERING));
    Map<String, String> examples =
        Map.of(
            "memberObserved", "{\"request\":{\"name\":\"b\",\"uid\":\"uid-b\"}}",
            "jobObserved", "{\"id\":1,\"name\":\"x\",\"state\":\"PENDING\"}");
    try (RawSignals raws = new RawSignals(client, groupId())) {
      raws.sendAll(
          RawSignals.cases(PodGroupWorkflow.class, examples),
          () ->
              wf.status().timeline().stream()
                  .filter(t -> t.event().equals("signal-rejected"))
                  .map(t -> t.detail())
                  .toList(),
          () -> env.sleep(Duration.ofSeconds(1)));
      raws.replayLogsNothing(PodGroupWorkflowImpl.class);
    }
    assertEquals(GroupPhase.GATHERING, wf.status().phase());
  }
}
