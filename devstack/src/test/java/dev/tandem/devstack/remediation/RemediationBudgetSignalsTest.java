package dev.tandem.devstack.remediation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verifyNoInteractions;

import dev.tandem.activities.RebootActions;
import dev.tandem.activities.RemediationActivitiesImpl;
import dev.tandem.devstack.temporal.LocalTemporal;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.remediation.BudgetStatus;
import dev.tandem.workflows.remediation.RemediationBudgetWorkflow;
import dev.tandem.workflows.remediation.SlotRelease;
import dev.tandem.workflows.remediation.SlotRequest;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * requestSlot/releaseSlot: signal-with-start of {@code remediation-budget} on the task queue the
 * worker serves, one workflow for every request. The budget's real implementation is another
 * module's; a recording stand-in answers here. No Kubernetes call is made: the client is a mock.
 */
class RemediationBudgetSignalsTest {
  LocalTemporal temporal;
  WorkflowServiceStubs stubs;
  WorkerFactory factory;
  WorkflowClient workflows;

  /** Records what it is sent: acquires as holders, releases as recent. */
  public static class RecordingBudget implements RemediationBudgetWorkflow {
    private final List<BudgetStatus.Entry> holders = new ArrayList<>();
    private final List<BudgetStatus.Entry> released = new ArrayList<>();

    @Override
    public void run(BudgetStatus carried) {
      Workflow.await(() -> false);
    }

    @Override
    public void acquire(SlotRequest request) {
      holders.add(new BudgetStatus.Entry(request, null, "granted"));
    }

    @Override
    public void release(SlotRelease release) {
      released.add(
          new BudgetStatus.Entry(
              new SlotRequest(release.k8sNode(), null, 1, null, 1, null), null, release.note()));
    }

    @Override
    public BudgetStatus status() {
      return new BudgetStatus(holders, List.of(), released);
    }
  }

  @BeforeEach
  void startTemporal() throws Exception {
    temporal = LocalTemporal.startTemporary();
    stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
    workflows = WorkflowClient.newInstance(stubs);
    factory = WorkerFactory.newInstance(workflows);
    factory.newWorker(Names.TASK_QUEUE).registerWorkflowImplementationTypes(RecordingBudget.class);
    factory.start();
  }

  @AfterEach
  void stopTemporal() {
    if (factory != null) {
      factory.shutdownNow();
    }
    if (stubs != null) {
      stubs.shutdownNow();
    }
    if (temporal != null) {
      temporal.close();
    }
  }

  @Test
  void slotsGoToTheOneBudgetWorkflowWhichTheFirstRequestStarts() {
    KubernetesClient client = mock(KubernetesClient.class);
    RemediationActivitiesImpl activities =
        new RemediationActivitiesImpl(
            client,
            mock(SlurmClient.class),
            workflows,
            RebootActions.parse(null, client, Clock.systemUTC()),
            0,
            Clock.systemUTC());
    SlotRequest a = new SlotRequest("host-a", List.of("default/gpu"), 1, "rack=r1", 1, "Condition");
    SlotRequest b = new SlotRequest("host-b", List.of("default/gpu"), 1, null, 1, "Operator");
    activities.requestSlot(a);
    activities.requestSlot(b);
    activities.releaseSlot(new SlotRelease("host-a", "Recovered"));

    RemediationBudgetWorkflow budget =
        workflows.newWorkflowStub(RemediationBudgetWorkflow.class, Names.REMEDIATION_BUDGET_ID);
    BudgetStatus s =
        Await.until(
            "the budget to have seen all three signals",
            Duration.ofSeconds(30),
            budget::status,
            st -> st.holders().size() == 2 && st.recent().size() == 1);
    assertEquals(List.of(a, b), s.holders().stream().map(BudgetStatus.Entry::request).toList());
    assertEquals("Recovered", s.recent().get(0).note());
    verifyNoInteractions(client);
  }
}
