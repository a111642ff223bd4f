package dev.tandem.workflows.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The first submit without a listing ({@link PlaceholderCare}): when it is taken, when it is not,
 * and what happens to a second job with the pod's tag.
 */
class SoleSubmitTest extends ScheduleTestBase {

  @Test
  void aFreshPodsFirstSubmitListsNothingAndItsEndCancelsTheSoleJobWithoutAListing() {
    PodScheduleWorkflow wf = running("sole");
    assertEquals(1, world.firstSubmits, "submitted without looking for the tag first");
    world.pods.remove("sole");
    wf.podObserved(PodView.absent("sole"));
    assertEquals(SchedulePhase.DONE, result(wf));
    assertEquals(List.of(world.onlyJobId()), world.cancelled);
    assertTrue(
        world.reads.stream().noneMatch(r -> r.startsWith("find ")),
        "no listing of Slurm's jobs for the tag: " + world.reads);
  }

  @Test
  void aSecondJobWithThePodsTagIsCancelledOnSightAndThePodKeepsItsOwn() {
    PodScheduleWorkflow wf = running("stray");
    long own = world.onlyJobId();
    // A submit repeated after a crash left a second job with the same tag.
    PodRequest r = request("stray", Map.of(), 30);
    SlurmJobView second = FakeScheduling.queued(own + 50, r.uid());
    world.jobs.put(second.id(), second);
    wf.jobObserved(second);
    await("stray cancelled", 5, () -> world.cancelled.contains(second.id()));
    assertEquals(SchedulePhase.RUNNING, wf.status().phase());
    assertEquals(own, wf.status().jobId());
    assertTrue(
        wf.status().timeline().stream().anyMatch(e -> e.event().equals("stray-cancelled")),
        wf.status().timeline().toString());
    // An ended job with the tag is no stray: nothing to cancel.
    wf.jobObserved(world.jobs.get(second.id()));
    env.sleep(Duration.ofSeconds(3));
    assertEquals(List.of(second.id()), world.cancelled);
    world.pods.remove("stray");
    wf.podObserved(PodView.absent("stray"));
    assertEquals(SchedulePhase.DONE, result(wf));
    assertEquals(List.of(second.id(), own), world.cancelled);
  }

  @Test
  void aSubmitRetriedAfterItsAnswerWasLostLooksFirstAndTheEndListsEveryTaggedJob() {
    world.loseSubmitAnswers = 1;
    PodScheduleWorkflow wf = schedule("lost");
    await("pending", 30, () -> in(wf, SchedulePhase.PENDING));
    assertEquals(1, world.firstSubmits);
    assertEquals(1, world.jobs.size(), "the retry found the job instead of making another");
    world.pods.remove("lost");
    wf.podObserved(PodView.absent("lost"));
    assertEquals(SchedulePhase.DONE, result(wf));
    assertTrue(world.reads.contains("find uid-lost"), world.reads.toString());
    assertEquals(List.of(world.onlyJobId()), world.cancelled);
  }

  /**
   * What a crashed worker's task looks like to the next one: its first task starts only after the
   * task timeout (here: no worker polls until the task timeout has passed since the start). Such a
   * task may repeat a submit that reached Slurm, so it looks for the tag first.
   */
  @Test
  void aFirstTaskStartedAfterTheTaskTimeoutLooksForTheTagFirst() {
    FakeScheduling late = new FakeScheduling();
    try (TestWorkflowEnvironment e2 = TestWorkflowEnvironment.newInstance()) {
      PodRequest r = request("late", Map.of(), 30);
      late.addPod(r.name(), r.uid());
      // The job an earlier, crashed attempt submitted.
      SlurmJobView earlier = FakeScheduling.queued(7, r.uid());
      late.jobs.put(earlier.id(), earlier);
      PodScheduleWorkflow wf = startLate(e2, late, r, PodScheduleWorkflow.TASK_TIMEOUT);
      assertEquals(0, late.firstSubmits, "a late first task must look first");
      assertEquals(earlier.id(), wf.status().jobId(), "took the earlier attempt's job");
      assertTrue(late.submitted.isEmpty(), "no second job");
      late.pods.remove("late");
      wf.podObserved(PodView.absent("late"));
      assertEquals(SchedulePhase.DONE, WorkflowStub.fromTyped(wf).getResult(SchedulePhase.class));
      assertFalse(late.reads.isEmpty(), "the end lists the tag too: " + late.reads);
    }
  }

  /**
   * A first task that starts later than half the task timeout, but sooner than the timeout (a
   * backlog on the task queue, not a crash), cannot repeat an earlier try: it submits without the
   * listing, and the pod's end cancels its sole job without one either.
   */
  @Test
  void aFirstTaskStartedLateButWithinTheTaskTimeoutSubmitsWithoutAListing() {
    FakeScheduling late = new FakeScheduling();
    try (TestWorkflowEnvironment e2 = TestWorkflowEnvironment.newInstance()) {
      PodRequest r = request("backlog", Map.of(), 30);
      late.addPod(r.name(), r.uid());
      Duration wait = PodScheduleWorkflow.TASK_TIMEOUT.dividedBy(2).plusSeconds(2);
      assertTrue(wait.compareTo(PlaceholderCare.FIRST_TASK_WINDOW) < 0, "within the window");
      PodScheduleWorkflow wf = startLate(e2, late, r, wait);
      assertEquals(1, late.firstSubmits, "submitted without looking for the tag first");
      late.pods.remove("backlog");
      wf.podObserved(PodView.absent("backlog"));
      assertEquals(SchedulePhase.DONE, WorkflowStub.fromTyped(wf).getResult(SchedulePhase.class));
      assertEquals(List.of(late.onlyJobId()), late.cancelled);
      assertTrue(
          late.reads.stream().noneMatch(x -> x.startsWith("find ")),
          "no listing of Slurm's jobs for the tag: " + late.reads);
    }
  }

  /**
   * Starts {@code r}'s workflow with no worker polling until {@code wait} has passed, then waits
   * until it is pending.
   */
  private static PodScheduleWorkflow startLate(
      TestWorkflowEnvironment e2, FakeScheduling world, PodRequest r, Duration wait) {
    for (String sa : List.of(Names.SA_POD, Names.SA_JOB_ID, Names.SA_PHASE, Names.SA_K8S_NODE)) {
      e2.registerSearchAttribute(sa, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    }
    var w = e2.newWorker(Names.TASK_QUEUE);
    w.registerWorkflowImplementationTypes(PodScheduleWorkflowImpl.class);
    w.registerActivitiesImplementations(world);
    PodScheduleWorkflow wf =
        e2.getWorkflowClient()
            .newWorkflowStub(
                PodScheduleWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId(PodScheduleWorkflowImpl.workflowId(r))
                    .setTaskQueue(Names.TASK_QUEUE)
                    .setWorkflowTaskTimeout(PodScheduleWorkflow.TASK_TIMEOUT)
                    .build());
    WorkflowClient.start(wf::run, new PodScheduleInput(r, CONFIG, TUNING, null));
    e2.sleep(wait);
    e2.start();
    for (int i = 0; i < 20 && wf.status().phase() != SchedulePhase.PENDING; i++) {
      e2.sleep(Duration.ofSeconds(1));
    }
    assertEquals(SchedulePhase.PENDING, wf.status().phase());
    return wf;
  }
}
