package dev.tandem.workflows.replay;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.schedule.PodScheduleWorkflow;
import dev.tandem.workflows.schedule.PodScheduleWorkflowImpl;
import dev.tandem.workflows.schedule.SchedulePhase;
import dev.tandem.workflows.schedule.ScheduleTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Records the pod scheduling workflow's histories that {@link ReplayTest} replays; runs only on
 * request, like {@link RecordHistoriesTest}:
 *
 * <pre>./mvnw -pl workflows test -Dtest=RecordScheduleHistoriesTest -Dtandem.recordHistories=v1
 * </pre>
 */
class RecordScheduleHistoriesTest extends ScheduleTestBase {
  private static final String TAG = System.getProperty("tandem.recordHistories", "");
  private static final Path DIR = Path.of("src/test/resources/histories");

  @Test
  void recordSchedule() throws IOException {
    assumeTrue(!TAG.isEmpty(), "set -Dtandem.recordHistories=<tag> to record");
    // bound, then the pod is deleted
    PodScheduleWorkflow bound = running("rec-bound");
    world.pods.remove("rec-bound");
    bound.podObserved(PodView.absent("rec-bound"));
    result(bound);
    write("schedule-bound", request("rec-bound", Map.of(), 30));
    // preempted (requeued) and evicted, with a garbage signal on the way
    PodScheduleWorkflow pre = running("rec-pre");
    client
        .newUntypedWorkflowStub(
            PodScheduleWorkflowImpl.workflowId(request("rec-pre", Map.of(), 30)))
        .signal("jobObserved", "garbage");
    long id = world.jobOf("uid-rec-pre");
    pre.jobObserved(world.setJob(id, "PENDING", "BeginTime", List.of()));
    result(pre);
    write("schedule-preempted", request("rec-pre", Map.of(), 30));
    // invalid
    PodScheduleWorkflow bad =
        schedule(request("rec-bad", Map.of("tandem.dev/qos", "a b"), 30), TUNING);
    result(bad);
    write("schedule-invalid", request("rec-bad", Map.of("tandem.dev/qos", "a b"), 30));
    // a long wait in Slurm's queue with timer re-reads, continuing as new
    PodScheduleWorkflow wait =
        schedule(request("rec-wait", Map.of(), 30), new Tuning(1, 2, 200, 200, 120, true));
    await("pending", 10, () -> in(wait, SchedulePhase.PENDING));
    env.sleep(java.time.Duration.ofSeconds(60));
    world.pods.remove("rec-wait");
    result(wait);
    write("schedule-wait", request("rec-wait", Map.of(), 30));
  }

  private void write(String name, dev.tandem.workflows.schedule.PodRequest pod) throws IOException {
    String wid = PodScheduleWorkflowImpl.workflowId(pod);
    String json = client.fetchHistory(wid).toJson(false);
    Files.createDirectories(DIR);
    Files.writeString(DIR.resolve(name + "-" + TAG + ".json"), json);
  }
}
