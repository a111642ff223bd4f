package dev.tandem.workflows.testing;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.node.NodeLifecycleWorkflowImpl;
import dev.tandem.workflows.nodeset.NodeSetInput;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import dev.tandem.workflows.nodeset.NodeSetWorkflowImpl;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.worker.Worker;

/**
 * Tandem's workflows in a test, on whichever Temporal runs them (the time-skipping test environment
 * of {@link WorkflowTestBase} or a local server): the same registration and start as the worker.
 */
public final class TandemWorkflows {
  private TandemWorkflows() {}

  /** Registers both workflows on {@code w}, with {@code cluster} behind their activities. */
  public static void register(Worker w, FakeCluster cluster) {
    w.registerWorkflowImplementationTypes(
        NodeSetWorkflowImpl.class, NodeLifecycleWorkflowImpl.class);
    w.registerActivitiesImplementations(cluster);
  }

  /** Starts the NodeSet workflow of {@code ref} on Tandem's task queue; returns its stub. */
  public static NodeSetWorkflow startNodeSet(
      WorkflowClient client, NodeSetRef ref, NodeSetSpecView spec, Tuning tuning) {
    NodeSetWorkflow wf =
        client.newWorkflowStub(
            NodeSetWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(ref.workflowId())
                .setTaskQueue(Names.TASK_QUEUE)
                .build());
    WorkflowClient.start(wf::run, new NodeSetInput(ref, spec, tuning, null));
    return wf;
  }

  /** Exactly {@code n} nodes, every one READY. */
  public static boolean allReady(NodeSetSnapshot s, int n) {
    return s.nodes().size() == n && s.nodes().stream().allMatch(x -> x.phase() == NodePhase.READY);
  }
}
