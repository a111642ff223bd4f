package dev.tandem.workflows.replay;

import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.schedule.FakeScheduling;
import dev.tandem.workflows.schedule.PodScheduleWorkflow;
import dev.tandem.workflows.schedule.PodScheduleWorkflowImpl;
import dev.tandem.workflows.schedule.SchedulePhase;
import dev.tandem.workflows.schedule.ScheduleTestBase;
import dev.tandem.workflows.testing.Histories;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Records the pod scheduling workflow's baseline histories for the current release, which {@link
 * ReplayTest} replays so that a change to what the workflow decides, or to the commands it issues,
 * shows as non-determinism. Runs only on request, with the release as the tag (the file suffix):
 *
 * <pre>
 * ./mvnw -o -B -pl workflows test -Dtest='RecordScheduleHistoriesTest,RecordGroupHistoriesTest'
 *     -Dtandem.recordHistories=0.1.0</pre>
 *
 * <p>Histories of code before a release are never needed: nothing ran it.
 */
class RecordScheduleHistoriesTest extends ScheduleTestBase {

  /** Bound, then the pod is deleted: the job is released. */
  @Test
  void recordBound() {
    Histories.assumeRecording();
    PodScheduleWorkflow wf = running("rec-bound");
    world.pods.remove("rec-bound");
    wf.podObserved(PodView.absent("rec-bound"));
    result(wf);
    write("schedule-bound", "rec-bound");
  }

  /**
   * A garbage signal, then the running job requeued (preempted): the pod is told and evicted, and
   * the run waits for the watcher's word that the pod is gone.
   */
  @Test
  void recordPreempted() {
    Histories.assumeRecording();
    PodScheduleWorkflow wf = running("rec-pre");
    client.newUntypedWorkflowStub(id("rec-pre")).signal("jobObserved", "garbage");
    wf.jobObserved(world.setJob(world.onlyJobId(), "PENDING", "BeginTime", List.of()));
    await("evicted", 5, () -> world.evictions.size() == 1);
    world.pods.remove("rec-pre");
    wf.podObserved(PodView.absent("rec-pre"));
    result(wf);
    write("schedule-preempted", "rec-pre");
  }

  /** Slurm refuses the job for good, as the real activities report it (with a cause): INVALID. */
  @Test
  void recordRefused() {
    Histories.assumeRecording();
    world.refuseSubmit = "Invalid partition name specified";
    PodScheduleWorkflow wf = schedule(request("rec-refused", Map.of(), 30), TUNING);
    result(wf);
    write("schedule-refused", "rec-refused");
  }

  /**
   * A long wait in Slurm's queue: the watcher's signal of a job still waiting brings the queued
   * notice; resync re-reads, continues as new, and the pod's deletion found by a re-read (a lost
   * signal). The first run and the last are recorded.
   */
  @Test
  void recordWait() {
    Histories.assumeRecording();
    PodScheduleWorkflow wf =
        schedule(request("rec-wait", Map.of(), 30), new Tuning(1, 2, 200, 200, 120, true));
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    long id = world.jobOf("uid-rec-wait");
    env.sleep(Duration.ofSeconds(6));
    wf.jobObserved(world.setJob(id, "PENDING", "Resources", List.of()));
    await("told queued", 3, () -> !world.conditions.isEmpty());
    env.sleep(Duration.ofSeconds(60));
    world.pods.remove("rec-wait");
    result(wf);
    String first = WorkflowStub.fromTyped(wf).getExecution().getRunId();
    Histories.record(client, "schedule-wait-first-run", id("rec-wait"), first);
    write("schedule-wait", "rec-wait");
  }

  /** The pod is deleted while its bind answers "bound". */
  @Test
  void recordDeletedDuringBind() {
    Histories.assumeRecording();
    world.slurmToK8s.put("n1", "k1");
    world.duringBind =
        () -> {
          world.pods.remove("rec-gone");
          client
              .newUntypedWorkflowStub(id("rec-gone"))
              .signal("podObserved", PodView.absent("rec-gone"));
        };
    PodScheduleWorkflow wf = schedule(request("rec-gone", Map.of(), 30), TUNING);
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    wf.jobObserved(world.setJob(world.jobOf("uid-rec-gone"), "RUNNING", "None", List.of("n1")));
    result(wf);
    write("schedule-deleted-during-bind", "rec-gone");
  }

  /** The pod is being deleted: its job is held until the pod is gone, then released. */
  @Test
  void recordStopping() {
    Histories.assumeRecording();
    PodScheduleWorkflow wf = running("rec-stop");
    PodView stopping = FakeScheduling.pod("rec-stop", "uid-rec-stop", "Running", "k1", true);
    world.pods.put("rec-stop", stopping);
    wf.podObserved(stopping);
    await(
        "waiting for the pod to stop",
        5,
        () -> wf.status().timeline().stream().anyMatch(e -> e.event().equals("awaiting-stop")));
    world.pods.remove("rec-stop");
    wf.podObserved(PodView.absent("rec-stop"));
    result(wf);
    write("schedule-stopping", "rec-stop");
  }

  /**
   * The pod is gone while its eviction for a preempted job answers: the evicting task's completion
   * is refused and its retry sees both.
   */
  @Test
  void recordEvictionRace() {
    Histories.assumeRecording();
    PodScheduleWorkflow wf = preemptedWhileThePodGoes("rec-race");
    result(wf);
    write("schedule-eviction-race", "rec-race");
  }

  /**
   * A second job with the pod's tag seen while the pod runs (a submit repeated after a crash):
   * cancelled on sight, the pod keeps its own.
   */
  @Test
  void recordStray() {
    Histories.assumeRecording();
    PodScheduleWorkflow wf = running("rec-stray");
    SlurmJobView second = FakeScheduling.queued(world.onlyJobId() + 50, "uid-rec-stray");
    world.jobs.put(second.id(), second);
    wf.jobObserved(second);
    await("stray cancelled", 5, () -> world.cancelled.contains(second.id()));
    world.pods.remove("rec-stray");
    wf.podObserved(PodView.absent("rec-stray"));
    result(wf);
    write("schedule-stray", "rec-stray");
  }

  private static String id(String pod) {
    return PodScheduleWorkflowImpl.workflowId(request(pod, Map.of(), 30));
  }

  private void write(String name, String pod) {
    Histories.record(client, name, id(pod), null);
  }
}
