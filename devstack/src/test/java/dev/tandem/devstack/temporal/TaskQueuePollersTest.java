package dev.tandem.devstack.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.testing.Await;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.DescribeTaskQueueMode;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.taskqueue.v1.PollerInfo;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.PollWorkflowTaskQueueRequest;
import io.temporal.api.workflowservice.v1.PollWorkflowTaskQueueResponse;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code DescribeTaskQueue} on the local Temporal lists pollers like a real server. */
class TaskQueuePollersTest {
  private LocalTemporal temporal;
  private WorkflowServiceStubs stubs;

  @BeforeEach
  void start() throws Exception {
    temporal = LocalTemporal.start(0);
    stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
  }

  @AfterEach
  void stop() {
    stubs.shutdownNow();
    temporal.close();
  }

  private List<PollerInfo> pollers(String queue, TaskQueueType type) {
    return stubs
        .blockingStub()
        .withDeadlineAfter(5, TimeUnit.SECONDS)
        .describeTaskQueue(
            DescribeTaskQueueRequest.newBuilder()
                .setNamespace("default")
                .setTaskQueue(TaskQueue.newBuilder().setName(queue))
                .setTaskQueueType(type)
                .build())
        .getPollersList();
  }

  @Test
  void noPollerYetIsAnEmptyList() {
    assertEquals(List.of(), pollers("nobody", TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW));
  }

  @Test
  void anOpenPollIsListedFromItsStartAndItsEndUpdatesTheTime() throws Exception {
    Instant before = Instant.now();
    Future<PollWorkflowTaskQueueResponse> poll =
        stubs
            .futureStub()
            .withDeadlineAfter(2, TimeUnit.SECONDS)
            .pollWorkflowTaskQueue(
                PollWorkflowTaskQueueRequest.newBuilder()
                    .setNamespace("default")
                    .setTaskQueue(TaskQueue.newBuilder().setName("q"))
                    .setIdentity("poller-1")
                    .build());
    List<PollerInfo> open =
        Await.until(
            "the open poll to be listed",
            Duration.ofSeconds(5),
            () -> pollers("q", TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
            l -> !l.isEmpty());
    assertEquals("poller-1", open.get(0).getIdentity());
    long startedAt = open.get(0).getLastAccessTime().getSeconds();
    assertTrue(startedAt >= before.getEpochSecond(), "last access is the poll's start");
    assertEquals(
        List.of(),
        pollers("q", TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
        "a workflow poll is not an activity poller");

    try {
      poll.get(10, TimeUnit.SECONDS); // the 2 s deadline ends the poll
    } catch (ExecutionException e) {
      // DEADLINE_EXCEEDED: expected
    }
    Thread.sleep(200);
    List<PollerInfo> after = pollers("q", TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW);
    assertEquals(1, after.size());
    Instant end =
        Instant.ofEpochSecond(
            after.get(0).getLastAccessTime().getSeconds(),
            after.get(0).getLastAccessTime().getNanos());
    assertTrue(
        end.isAfter(before.plusMillis(1500)),
        "the poll's end (after its 2 s deadline) is its last access: " + end + " vs " + before);
  }

  @Test
  void anSdkWorkerIsListedForWorkflowAndActivityTasksWithItsIdentity() {
    WorkerFactory factory = WorkerFactory.newInstance(WorkflowClient.newInstance(stubs));
    try {
      Worker worker = factory.newWorker("probe");
      worker.registerWorkflowImplementationTypes(ProbeWorkflow.Impl.class);
      worker.registerActivitiesImplementations((ProbeWorkflow.Activities) item -> item);
      factory.start();
      String identity = WorkflowClient.newInstance(stubs).getOptions().getIdentity();
      for (TaskQueueType type :
          List.of(
              TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
              TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
              TaskQueueType.TASK_QUEUE_TYPE_UNSPECIFIED)) {
        List<PollerInfo> p =
            Await.until(
                type + " pollers",
                Duration.ofSeconds(10),
                () -> pollers("probe", type),
                l -> !l.isEmpty());
        assertEquals(identity, p.get(0).getIdentity(), type.toString());
      }
    } finally {
      factory.shutdownNow();
    }
  }

  @Test
  void refusesWhatARealServerRefusesAndTheEnhancedMode() {
    StatusRuntimeException noQueue =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                stubs
                    .blockingStub()
                    .describeTaskQueue(
                        DescribeTaskQueueRequest.newBuilder().setNamespace("default").build()));
    assertEquals(Status.Code.INVALID_ARGUMENT, noQueue.getStatus().getCode());
    StatusRuntimeException enhanced =
        assertThrows(
            StatusRuntimeException.class,
            () ->
                stubs
                    .blockingStub()
                    .describeTaskQueue(
                        DescribeTaskQueueRequest.newBuilder()
                            .setNamespace("default")
                            .setTaskQueue(TaskQueue.newBuilder().setName("q"))
                            .setApiMode(DescribeTaskQueueMode.DESCRIBE_TASK_QUEUE_MODE_ENHANCED)
                            .build()));
    assertEquals(Status.Code.UNIMPLEMENTED, enhanced.getStatus().getCode());
  }
}
