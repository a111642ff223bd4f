package dev.tandem.devstack.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The local Temporal keeps the test server's lock event log short ({@link BoundedLockLog}), and
 * workflows run as before with it.
 */
class BoundedLockLogTest {
  private static final String QUEUE = "bounded-lock-log";

  @Test
  void theLogKeepsItsNewestEntriesAndAnUnlockOfADroppedOneStillCounts() {
    BoundedLockLog l = new BoundedLockLog();
    Object first = new Object();
    l.add(first);
    assertFalse(l.remove(new Object()), "nothing dropped yet: an unknown entry is not found");
    for (int i = 0; i < 3 * BoundedLockLog.KEEP; i++) {
      l.add(i);
    }
    assertEquals(BoundedLockLog.KEEP, l.size());
    assertFalse(l.contains(first));
    assertTrue(l.remove(first), "its handle unlocks without an unbalanced-lock error");
    Object last = l.getLast();
    assertTrue(l.remove(last));
    assertEquals(BoundedLockLog.KEEP - 1, l.size());
  }

  @Test
  void theLocalTemporalsLogStaysShortWhileWorkflowsRun() throws Exception {
    try (LocalTemporal temporal = LocalTemporal.start(0)) {
      assertInstanceOf(
          BoundedLockLog.class,
          BoundedLockLog.current(temporal.services()),
          "installed: this test server still keeps its lock events where Tandem looks");
      WorkflowServiceStubs stubs =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
      try {
        WorkflowClient client = WorkflowClient.newInstance(stubs);
        WorkerFactory factory = WorkerFactory.newInstance(client);
        Worker worker = factory.newWorker(QUEUE);
        worker.registerWorkflowImplementationTypes(ProbeWorkflow.Impl.class);
        worker.registerActivitiesImplementations((ProbeWorkflow.Activities) item -> item + "@w");
        factory.start();
        ProbeWorkflow wf =
            client.newWorkflowStub(
                ProbeWorkflow.class,
                WorkflowOptions.newBuilder().setWorkflowId("probe").setTaskQueue(QUEUE).build());
        WorkflowClient.start(wf::run);
        // Each item is a signal, a workflow task and an activity task: several lock events each,
        // far more than the log keeps.
        int items = BoundedLockLog.KEEP;
        for (int i = 0; i < items; i++) {
          wf.add("item-" + i);
        }
        wf.add("stop");
        WorkflowStub.fromTyped(wf)
            .getResult(
                Duration.ofSeconds(60).toMillis(),
                java.util.concurrent.TimeUnit.MILLISECONDS,
                Void.class);
        List<?> log = (List<?>) BoundedLockLog.current(temporal.services());
        assertTrue(log.size() <= BoundedLockLog.KEEP, "log of " + log.size() + " entries");
        factory.shutdownNow();
      } finally {
        stubs.shutdownNow();
      }
    }
  }
}
