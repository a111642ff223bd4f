package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.temporal.LocalTemporal;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.model.UpdateCommand;
import dev.tandem.workflows.node.NodeLifecycleInput;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code tandem drain --wait} keeps waiting while the worker is away (it says so once) and finishes
 * when a new worker answers, instead of failing on the first unanswered query.
 */
class DrainWaitAcrossWorkerRestartTest {
  /** A node workflow that drains on the manual signal and is drained after a resync. */
  public static class FakeNode implements NodeLifecycleWorkflow {
    private final Map<String, String> holds = new HashMap<>();
    private NodePhase phase = NodePhase.READY;

    @Override
    public NodePhase run(NodeLifecycleInput input) {
      Workflow.await(() -> phase == NodePhase.DELETED);
      return phase;
    }

    @Override
    public void drain(NodeCommand c) {
      holds.put(c.owner(), c.reason());
      phase = NodePhase.DRAINING;
    }

    @Override
    public void resync() {
      if (phase == NodePhase.DRAINING) {
        phase = NodePhase.DRAINED;
      }
    }

    @Override
    public NodeStatus status() {
      return new NodeStatus(
          null, phase, "r1", "r1", null, new HashMap<>(holds), null, null, null, null, List.of());
    }

    @Override
    public void undrain(NodeCommand c) {}

    @Override
    public void delete(NodeCommand c) {}

    @Override
    public void update(UpdateCommand c) {}

    @Override
    public void podObserved(PodView pod) {}

    @Override
    public void slurmObserved(SlurmNodeView node) {}
  }

  private static WorkerFactory worker(WorkflowClient client) {
    WorkerFactory f = WorkerFactory.newInstance(client);
    f.newWorker(Names.TASK_QUEUE).registerWorkflowImplementationTypes(FakeNode.class);
    f.start();
    return f;
  }

  @Test
  void drainWaitSurvivesTheWorkerGoingAwayAndComingBack() throws Exception {
    try (LocalTemporal temporal = LocalTemporal.startTemporary()) {
      WorkflowServiceStubs stubs =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
      WorkflowClient client = WorkflowClient.newInstance(stubs);
      WorkerFactory first = worker(client);
      WorkerFactory second = null;
      try {
        String id = Names.nodeWorkflowId("default", "gpu-a-0");
        NodeLifecycleWorkflow node =
            client.newWorkflowStub(
                NodeLifecycleWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId(id)
                    .setTaskQueue(Names.TASK_QUEUE)
                    .build());
        WorkflowClient.start(node::run, (NodeLifecycleInput) null);

        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CompletableFuture<Integer> drain =
            CompletableFuture.supplyAsync(
                () ->
                    TandemCli.run(
                        new PrintWriter(out, true),
                        new PrintWriter(err, true),
                        "drain",
                        "gpu-a-0",
                        "--reason",
                        "restart test",
                        "--wait",
                        "--timeout",
                        "60s",
                        "--query-timeout",
                        "2s",
                        "--address",
                        temporal.address()));
        Duration limit = Duration.ofSeconds(30);
        Await.until("the wait to see draining", limit, out::toString, o -> o.contains("draining"));

        first.shutdownNow();
        first.awaitTermination(10, TimeUnit.SECONDS);
        Await.until(
            "the wait to report the missing worker",
            limit,
            out::toString,
            o -> o.contains("(still waiting)"));
        assertTrue(!drain.isDone(), "still waiting: " + out + err);

        second = worker(client);
        client.newWorkflowStub(NodeLifecycleWorkflow.class, id).resync();
        int code = drain.get(30, TimeUnit.SECONDS);
        assertEquals(0, code, out + "\n" + err);
        assertTrue(out.toString().endsWith("default/gpu-a-0 is drained\n"), out.toString());
        assertTrue(
            out.toString()
                .contains(
                    "  default/gpu-a-0: no answer: no answer within 2s for node/default/gpu-a-0"
                        + " from the Tandem worker polling task queue \"tandem\" at "),
            out.toString());
      } finally {
        first.shutdownNow();
        if (second != null) {
          second.shutdownNow();
        }
        stubs.shutdownNow();
      }
    }
  }
}
