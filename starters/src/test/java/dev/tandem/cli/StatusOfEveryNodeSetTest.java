package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.devstack.temporal.LocalTemporal;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.NodeSummary;
import dev.tandem.workflows.model.SlurmCounts;
import dev.tandem.workflows.nodeset.NodeSetInput;
import dev.tandem.workflows.nodeset.NodeSetRun;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code tandem status} without a NodeSet lists the namespace's running NodeSet workflows from
 * visibility (no kubeconfig): not one whose workflow ended, not another namespace's.
 */
class StatusOfEveryNodeSetTest {
  private static LocalTemporal temporal;
  private static WorkflowServiceStubs stubs;
  private static WorkerFactory worker;

  /** A NodeSet workflow that answers {@code status} with one ready node; "*-ended" ends at once. */
  public static class FakeNodeSet implements NodeSetRun {
    @Override
    public void run(NodeSetInput input) {
      Workflow.await(() -> Workflow.getInfo().getWorkflowId().endsWith("-ended"));
    }

    @Override
    public NodeSetSnapshot status() {
      String[] id = Workflow.getInfo().getWorkflowId().split("/");
      return new NodeSetSnapshot(
          new NodeSetRef(id[1], id[2]),
          false,
          1,
          new NodeSetStatusView(
              1,
              1,
              1,
              new SlurmCounts(1, 0, 0, 0, 0),
              "r1",
              "r1",
              1,
              "tandem.dev/nodeset=" + id[2],
              List.of()),
          List.of(
              new NodeSummary(id[2] + "-0", 0, NodePhase.READY, "r1", "idle", null, "k1", null)));
    }
  }

  @BeforeAll
  static void start() throws Exception {
    temporal = LocalTemporal.startTemporary();
    stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
    WorkflowClient client = WorkflowClient.newInstance(stubs);
    worker = WorkerFactory.newInstance(client);
    worker.newWorker(Names.TASK_QUEUE).registerWorkflowImplementationTypes(FakeNodeSet.class);
    worker.start();
    for (String[] s :
        new String[][] {
          {"default", "gpu-b"}, {"default", "gpu-a"}, {"default", "old-ended"}, {"team-x", "gpu-c"}
        }) {
      NodeSetRun wf =
          client.newWorkflowStub(
              NodeSetRun.class,
              WorkflowOptions.newBuilder()
                  .setWorkflowId(Names.nodeSetWorkflowId(s[0], s[1]))
                  .setTaskQueue(Names.TASK_QUEUE)
                  .build());
      WorkflowClient.start(wf::run, (NodeSetInput) null);
    }
    client
        .newUntypedWorkflowStub(Names.nodeSetWorkflowId("default", "old-ended"))
        .getResult(Void.class);
    // Visibility is eventually consistent: wait until it shows the ended one as ended.
    Await.until(
        "visibility lists the running NodeSets",
        Duration.ofSeconds(30),
        () ->
            client
                .listExecutions("WorkflowType = 'NodeSet' AND ExecutionStatus = 'Running'")
                .count(),
        n -> n == 3);
  }

  @AfterAll
  static void stop() {
    worker.shutdownNow();
    stubs.shutdownNow();
    temporal.close();
  }

  private static CliRun tandem(String... args) {
    return CliRun.fast(CliRun.concat(args, "--address", temporal.address()));
  }

  @Test
  void everyRunningNodeSetOfTheNamespaceInNameOrder() {
    CliRun r = tandem("status");
    assertEquals(0, r.code(), r.toString());
    assertEquals(
        List.of(
            "NodeSet default/gpu-a: 1/1 ready, 1 at revision r1",
            "NodeSet default/gpu-b: 1/1 ready, 1 at revision r1"),
        r.out().lines().filter(l -> l.startsWith("NodeSet ")).toList(),
        r.out());
    assertTrue(r.out().contains("gpu-a-0 "), r.out());

    CliRun other = tandem("status", "-k", "team-x");
    assertTrue(other.out().startsWith("NodeSet team-x/gpu-c: 1/1 ready"), other.out());
    assertEquals(1, other.out().lines().filter(l -> l.startsWith("NodeSet ")).count());

    assertEquals("no NodeSets in namespace none\n", tandem("status", "-k", "none").out());
  }

  @Test
  void jsonIsAnArrayOfTheSnapshots() throws Exception {
    CliRun r = tandem("status", "-o", "json");
    assertEquals(0, r.code(), r.toString());
    JsonNode doc = Output.JSON.readTree(r.out());
    assertEquals(2, doc.size(), r.out());
    assertEquals("gpu-a", doc.get(0).path("ref").path("name").asText());
    assertEquals("gpu-b", doc.get(1).path("ref").path("name").asText());
  }

  /** A NodeSet named is asked for directly (visibility may lag): also one whose workflow ended. */
  @Test
  void aNamedNodeSetIsQueriedByItsWorkflowId() {
    CliRun r = tandem("status", "old-ended");
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().startsWith("NodeSet default/old-ended: "), r.out());
  }
}
