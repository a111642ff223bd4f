package dev.tandem.workflows.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A workflow task that starts late (a busy worker, a backlog on the task queue) carries both the
 * watcher's signal and the timer that fired while the task waited. The SDK's {@code Workflow.await}
 * then answers "timed out" although the signal came first; the workflows act on the signal's news
 * as it is, without the re-read (the pod and a listing of its Slurm jobs; a gang: every member) a
 * silent timeout calls for.
 */
class LateTaskTest extends GroupTestBase {
  private static final String LATE_QUEUE = "late";
  private static final int POLLERS = 2;
  private WorkerFactory factory;
  private Worker worker;

  @AfterEach
  void stopFactory() {
    if (factory != null) {
      factory.shutdownNow();
    }
  }

  @Test
  void aJobSeenRunningBeforeThePendingTimerFiredIsBoundWithoutARead() throws Exception {
    world.slurmToK8s.put("n1", "k1");
    PodRequest r = request("late", Map.of(), 30);
    startWorker();
    PodScheduleWorkflow wf = schedule(r, TUNING, LATE_QUEUE);
    await("pending", 3, () -> in(wf, SchedulePhase.PENDING));
    suspend(
        PodScheduleWorkflowImpl.workflowId(r),
        () -> wf.podObserved(FakeScheduling.pod("late", "uid-late", "Pending", null, false)));
    long id = world.jobOf("uid-late");
    wf.jobObserved(world.setJob(id, "RUNNING", "None", List.of("n1")));
    env.sleep(Duration.ofSeconds(TUNING.resyncSeconds() + 2));
    world.reads.clear();
    worker.resumePolling();
    await("running", 5, () -> in(wf, SchedulePhase.RUNNING));
    assertTrue(timerFiredAfterTheNews(history("late")), "not the case under test");
    Map<String, Long> calls = localActivities("late");
    assertFalse(calls.containsKey("SchedGetPod"), calls.toString());
    assertFalse(calls.containsKey("SchedFindJobs"), calls.toString());
    assertEquals(List.of(), world.reads);
    assertEquals(1, world.placements.size());
  }

  @Test
  void aGroupsJobSeenRunningBeforeItsTimerFiredIsBoundWithoutARead() throws Exception {
    for (int i = 1; i <= 3; i++) {
      world.slurmToK8s.put("n" + i, "k" + i);
    }
    startWorker();
    PodGroupWorkflow g = null;
    for (String n : List.of("a", "b", "c")) {
      g = join(member(n, 3), TUNING, LATE_QUEUE);
    }
    PodGroupWorkflow wf = g;
    await("pending", 3, () -> in(wf, GroupPhase.PENDING));
    PodRequest a = member("a", 3);
    suspend(groupId(), () -> wf.memberObserved(new GroupMember(a, world.getPod("default", "a"))));
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "RUNNING", "None", List.of("n1", "n2", "n3")));
    env.sleep(Duration.ofSeconds(TUNING.resyncSeconds() + 2));
    world.reads.clear();
    worker.resumePolling();
    await("running", 5, () -> in(wf, GroupPhase.RUNNING));
    assertTrue(
        timerFiredAfterTheNews(client.fetchHistory(groupId()).getEvents()),
        "not the case under test");
    assertEquals(List.of(), world.reads);
    assertEquals(3, world.binds.size());
  }

  /** After the jobObserved signal, a timer fired before the next workflow task started. */
  private static boolean timerFiredAfterTheNews(List<HistoryEvent> h) {
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

  /**
   * The worker stops polling. Polls it left open still take tasks: {@code nothingNew} (a signal
   * that changes nothing) is sent until its task stays in the queue for two seconds.
   */
  private void suspend(String workflowId, Runnable nothingNew) throws InterruptedException {
    worker.suspendPolling();
    for (int i = 0; ; i++) {
      assertTrue(i < 10, "the suspended worker kept taking tasks");
      nothingNew.run();
      Thread.sleep(2000); // real time: an open poll answers in milliseconds, even on a busy machine
      List<HistoryEvent> h = client.fetchHistory(workflowId).getEvents();
      if (h.get(h.size() - 1).getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) {
        return;
      }
    }
  }

  /**
   * A worker of its own on {@link #LATE_QUEUE}, without a sticky queue: all its polls are on the
   * queue.
   */
  private void startWorker() {
    factory =
        WorkerFactory.newInstance(
            client, WorkerFactoryOptions.newBuilder().setWorkflowCacheSize(0).build());
    worker =
        factory.newWorker(
            LATE_QUEUE,
            WorkerOptions.newBuilder().setMaxConcurrentWorkflowTaskPollers(POLLERS).build());
    worker.registerWorkflowImplementationTypes(
        PodScheduleWorkflowImpl.class, PodGroupWorkflowImpl.class);
    worker.registerActivitiesImplementations(world);
    factory.start();
  }
}
