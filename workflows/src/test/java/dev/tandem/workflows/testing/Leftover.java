package dev.tandem.workflows.testing;

import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;

/**
 * A workflow that holds a workflow id for a while and then ends, answering no signal: what a node
 * workflow of an earlier NodeSet looks like to a new one in the moment between its last report and
 * its end (a NodeSet deleted and created again under the same name, or scaled down and up again).
 * It runs on a task queue of its own, so it can take a node workflow's id without being one.
 */
public final class Leftover {
  private Leftover() {}

  static final String QUEUE = "leftover";

  /** Holds its id for {@code seconds} of workflow time. */
  @WorkflowInterface
  public interface LeftoverWorkflow {
    @WorkflowMethod
    void hold(long seconds);
  }

  /** The implementation: one timer. */
  public static final class LeftoverWorkflowImpl implements LeftoverWorkflow {
    @Override
    public void hold(long seconds) {
      Workflow.sleep(Duration.ofSeconds(seconds));
    }
  }

  /** Registers the leftover's worker; call before the environment starts. */
  public static void register(TestWorkflowEnvironment env) {
    env.newWorker(QUEUE).registerWorkflowImplementationTypes(LeftoverWorkflowImpl.class);
  }

  /** Starts a leftover under {@code workflowId} that ends after {@code seconds}. */
  public static void start(WorkflowClient client, String workflowId, long seconds) {
    LeftoverWorkflow wf =
        client.newWorkflowStub(
            LeftoverWorkflow.class,
            WorkflowOptions.newBuilder().setWorkflowId(workflowId).setTaskQueue(QUEUE).build());
    WorkflowClient.start(wf::hold, seconds);
  }
}
