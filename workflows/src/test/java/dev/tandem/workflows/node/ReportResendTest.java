package dev.tandem.workflows.node;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.HeldDrains;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.model.NodeSetDemand;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.nodeset.NodeSetInput;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node's report that its NodeSet workflow did not receive (no run of it took the signal: between
 * two runs of a continue-as-new on the local Temporal, found by {@code tandem bench fleet}, where a
 * NodeSet showed a ready node as registering for good) is sent again on the node's next pass, not
 * at the heartbeat ten resync periods later.
 */
class ReportResendTest extends WorkflowTestBase {
  private static final String QUEUE = "recorder";
  static final List<NodeReport> REPORTS = new CopyOnWriteArrayList<>();

  /** Stands in for the NodeSet workflow: keeps every report it receives. */
  public static class RecordingNodeSet implements NodeSetWorkflow {
    @Override
    public void run(NodeSetInput input) {
      Workflow.await(() -> false);
    }

    @Override
    public void specChanged(NodeSetSpecView spec) {}

    @Override
    public void delete(NodeCommand command) {}

    @Override
    public void nodeReported(NodeReport report) {
      if (!Workflow.isReplaying()) {
        REPORTS.add(report);
      }
    }

    @Override
    public void clusterHealth(ClusterHealth health) {}

    @Override
    public void drainsHeld(HeldDrains held) {}

    @Override
    public void demandObserved(NodeSetDemand demand) {}

    @Override
    public void resync() {}

    @Override
    public NodeSetSnapshot status() {
      return null;
    }
  }

  private WorkerFactory recorders;

  @AfterEach
  void stopRecorders() {
    if (recorders != null) {
      recorders.shutdownNow();
    }
    REPORTS.clear();
  }

  /** A worker for {@link RecordingNodeSet}, started; the caller shuts it down. */
  static WorkerFactory startRecorders(WorkflowClient client) {
    WorkerFactory f = WorkerFactory.newInstance(client);
    f.newWorker(QUEUE).registerWorkflowImplementationTypes(RecordingNodeSet.class);
    f.start();
    return f;
  }

  /** Starts a {@link RecordingNodeSet} in place of NodeSet {@code name}'s workflow. */
  static WorkflowStub startRecorder(WorkflowClient client, String name) {
    NodeSetWorkflow r =
        client.newWorkflowStub(
            NodeSetWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(Names.nodeSetWorkflowId(NS, name))
                .setTaskQueue(QUEUE)
                .build());
    WorkflowClient.start(r::run, (NodeSetInput) null);
    return WorkflowStub.fromTyped(r);
  }

  private boolean heardDrained() {
    return REPORTS.stream()
        .anyMatch(r -> r.slurmState() != null && r.slurmState().contains("DRAIN"));
  }

  @Test
  void aReportTheNodeSetMissedIsSentAgainOnTheNextPass() {
    recorders = startRecorders(client);
    WorkflowStub recorder = startRecorder(client, "late");
    startNode("late", 0, "a");
    await(
        "ready, and heard",
        60,
        () ->
            phaseIs("late-0", NodePhase.READY)
                && REPORTS.stream().anyMatch(r -> r.phase() == NodePhase.READY));

    recorder.terminate("the NodeSet is between two runs");
    cluster.adminDrain("late-0", "disk");
    // The node's safety re-read (every resync period, 10 s here) finds the drain and reports it;
    // nobody receives that report.
    await("drain seen by the node", 60, () -> nodeStatus("late-0").slurm().drainFlag());
    REPORTS.clear();

    startRecorder(client, "late");
    // The heartbeat would come ten resync periods (100 s) after the failed report.
    await("the missed report sent again", 30, this::heardDrained);
  }
}
