package dev.tandem.workflows.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code Versions.NEWS_OVER_TIMER}: a workflow task that starts late (a busy worker, a backlog on
 * the task queue) carries both the watcher's signal and the timer that fired while the task waited.
 * The SDK's {@code Workflow.await} then answers "timed out" although the signal came first, and the
 * pod workflow used to re-read the pod and list the pod's Slurm jobs before it acted on the news it
 * already had: under a backlog, every waiting pod paid a full job listing on its way to its bind.
 * The signal's news is acted on as it is.
 */
class LateTaskTest extends ScheduleTestBase {
  private static final String LATE_QUEUE = "late";
  private static final int POLLERS = 2;
  private Worker worker;

  @Test
  void aJobSeenRunningBeforeTheNoticeTimerFiredIsBoundWithoutARead() throws Exception {
    world.slurmToK8s.put("n1", "k1");
    PodRequest r = request("late", Map.of(), 30);
    WorkerFactory factory = factory();
    PodScheduleWorkflow wf = start(r);
    await("pending", 3, () -> in(wf, SchedulePhase.PENDING));
    // The worker stops polling. Polls it left open still take tasks: feed them harmless signals
    // until one stays in the queue.
    worker.suspendPolling();
    for (int i = 0; taskTaken(wf); i++) {
      assertTrue(i < 10, "the suspended worker kept taking tasks");
    }
    long id = world.jobOf("uid-late");
    wf.jobObserved(world.setJob(id, "RUNNING", "None", List.of("n1")));
    env.sleep(Duration.ofSeconds(SchedulePhases.QUEUED_NOTICE_SECONDS + 2));
    world.reads.clear();
    worker.resumePolling();
    try {
      await("running", 5, () -> in(wf, SchedulePhase.RUNNING));
      history("late")
          .forEach(
              e ->
                  System.out.println(
                      "EV "
                          + e.getEventType()
                          + " "
                          + (e.hasWorkflowTaskScheduledEventAttributes()
                              ? e.getWorkflowTaskScheduledEventAttributes().getTaskQueue()
                              : "")));
      assertTrue(timerFiredBeforeTheTask(history("late")), "not the case under test");
      Map<String, Long> calls = localActivities("late");
      assertFalse(calls.containsKey("SchedGetPod"), calls.toString());
      assertFalse(calls.containsKey("SchedFindJobs"), calls.toString());
      assertEquals(List.of(), world.reads);
      assertEquals(1, world.placements.size());
      // For ReplayTest, on request (-Dtandem.recordHistories=<tag>), as
      // RecordScheduleHistoriesTest.
      String tag = System.getProperty("tandem.recordHistories", "");
      if (!tag.isEmpty()) {
        Files.writeString(
            Path.of("src/test/resources/histories/schedule-late-task-" + tag + ".json"),
            client.fetchHistory(PodScheduleWorkflowImpl.workflowId(r)).toJson(false));
      }
    } finally {
      factory.shutdownNow();
    }
  }

  /** After the jobObserved signal, a timer fired before the next workflow task started. */
  private static boolean timerFiredBeforeTheTask(List<HistoryEvent> h) {
    boolean signalled = false;
    for (HistoryEvent e : h) {
      if (e.hasWorkflowExecutionSignaledEventAttributes()) {
        signalled |=
            e.getWorkflowExecutionSignaledEventAttributes()
                .getSignalName()
                .equals(Names.SIGNAL_JOB_OBSERVED);
      } else if (signalled && e.getEventType() == EventType.EVENT_TYPE_TIMER_FIRED) {
        return true;
      } else if (signalled && e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) {
        return false;
      }
    }
    return false;
  }

  /** Signals the pod unchanged; true when a worker took the signal's task within a second. */
  private boolean taskTaken(PodScheduleWorkflow wf) throws InterruptedException {
    wf.podObserved(FakeScheduling.pod("late", "uid-late", "Pending", null, false));
    Thread.sleep(1000); // real time: a worker's poll answers in milliseconds
    List<HistoryEvent> h = history("late");
    return h.get(h.size() - 1).getEventType() != EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED;
  }

  private PodScheduleWorkflow start(PodRequest r) {
    world.addPod(r.name(), r.uid());
    PodScheduleWorkflow wf =
        client.newWorkflowStub(
            PodScheduleWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(PodScheduleWorkflowImpl.workflowId(r))
                .setTaskQueue(LATE_QUEUE)
                .build());
    WorkflowClient.start(wf::run, new PodScheduleInput(r, CONFIG, TUNING, null));
    return wf;
  }

  /**
   * A worker of its own on {@link #LATE_QUEUE}, without a sticky queue: all its polls are on the
   * queue.
   */
  private WorkerFactory factory() {
    WorkerFactory f =
        WorkerFactory.newInstance(
            client, WorkerFactoryOptions.newBuilder().setWorkflowCacheSize(0).build());
    worker =
        f.newWorker(
            LATE_QUEUE,
            WorkerOptions.newBuilder().setMaxConcurrentWorkflowTaskPollers(POLLERS).build());
    worker.registerWorkflowImplementationTypes(PodScheduleWorkflowImpl.class);
    worker.registerActivitiesImplementations(world);
    f.start();
    return f;
  }
}
