package dev.tandem.workflows.remediation;

import static org.junit.jupiter.api.Assertions.fail;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.TimeoutAction;
import dev.tandem.workflows.model.Tuning;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactoryOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A time-skipping Temporal test environment with the remediation and budget workflows, a stand-in
 * node workflow ({@link FakeNodeWorkflowImpl}) and a {@link FakeRepair} world behind the
 * activities. The SDK's metrics go to a Micrometer registry, as in the worker.
 */
public abstract class RemediationTestBase {
  protected static final Tuning TUNING = new Tuning(1, 10, 4000, 200, 120, true);

  /** Short timeouts: restart 60 s, reboot 120 s, replace 180 s; re-check every 10 s. */
  protected static final List<LadderStep> STEPS =
      List.of(
          new LadderStep(RemediationAction.RESTART_SLURMD, 60),
          new LadderStep(RemediationAction.REBOOT, 120),
          new LadderStep(RemediationAction.REPLACE, 180));

  protected TestWorkflowEnvironment env;
  protected WorkflowClient client;
  protected FakeRepair world;
  protected SimpleMeterRegistry registry;
  protected Scope metrics;

  @BeforeEach
  void startEnvironment() {
    registry = new SimpleMeterRegistry();
    metrics =
        new RootScopeBuilder()
            .reporter(new MicrometerClientStatsReporter(registry))
            .reportEvery(com.uber.m3.util.Duration.ofMillis(10));
    TestEnvironmentOptions.Builder o = TestEnvironmentOptions.newBuilder().setMetricsScope(metrics);
    if (factoryOptions() != null) {
      o.setWorkerFactoryOptions(factoryOptions());
    }
    env = TestWorkflowEnvironment.newInstance(o.build());
    for (String sa : List.of(Names.SA_K8S_NODE, Names.SA_REMEDIATION_STEP)) {
      env.registerSearchAttribute(sa, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    }
    world = new FakeRepair();
    register(env.newWorker(Names.TASK_QUEUE), world);
    env.start();
    client = env.getWorkflowClient();
    world.client = client;
  }

  /** Worker factory options for the environment's worker, or null for the defaults. */
  protected WorkerFactoryOptions factoryOptions() {
    return null;
  }

  static void register(Worker w, FakeRepair world) {
    w.registerWorkflowImplementationTypes(
        RemediationWorkflowImpl.class,
        RemediationBudgetWorkflowImpl.class,
        FakeNodeWorkflowImpl.class);
    w.registerActivitiesImplementations(world);
  }

  @AfterEach
  void stopEnvironment() throws Exception {
    env.close();
    metrics.close();
  }

  /** One node per NodeSet, written (the default would keep a one-node NodeSet's node). */
  protected static final RemediationBudget ONE = new RemediationBudget(1, null, 1);

  protected static RemediationPolicy policy(DrainPolicy jobs, RemediationBudget budget) {
    return new RemediationPolicy(true, 60, null, null, STEPS, jobs, 10, ReplaceMode.MARK, budget);
  }

  protected static RemediationPolicy policy() {
    return policy(new DrainPolicy(100, TimeoutAction.FORCE), new RemediationBudget(5, null, 5));
  }

  /** Adds node {@code k8sNode} with its Slurm node {@code <k8sNode>-s} and its node workflow. */
  protected void addNode(String k8sNode, RemediationPolicy p, Map<String, String> labels) {
    String pod = k8sNode + "-s";
    world.addNode(k8sNode, p, labels, pod);
    FakeNodeWorkflow n =
        client.newWorkflowStub(
            FakeNodeWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(Names.nodeWorkflowId("default", pod))
                .setTaskQueue(Names.TASK_QUEUE)
                .build());
    WorkflowClient.start(n::run, pod);
  }

  /** Signal-with-start of {@code trigger}, as the watchers and the CLI do. */
  protected RemediationWorkflow trigger(String k8sNode, Object trigger) {
    return trigger(k8sNode, trigger, TUNING);
  }

  /** As {@link #trigger(String, Object)}, the workflow started with {@code tuning}. */
  protected RemediationWorkflow trigger(String k8sNode, Object trigger, Tuning tuning) {
    WorkflowStub stub =
        client.newUntypedWorkflowStub(
            "Remediation",
            WorkflowOptions.newBuilder()
                .setWorkflowId(Names.remediationWorkflowId(k8sNode))
                .setTaskQueue(Names.TASK_QUEUE)
                .build());
    stub.signalWithStart(
        Names.SIGNAL_TRIGGER,
        new Object[] {trigger},
        new Object[] {new RemediationInput(k8sNode, null, tuning)});
    return remediation(k8sNode);
  }

  protected RemediationWorkflow trigger(String k8sNode, TriggerKind kind, String detail) {
    return trigger(k8sNode, RemediationTrigger.of(kind, detail, "test"));
  }

  protected RemediationWorkflow remediation(String k8sNode) {
    return client.newWorkflowStub(RemediationWorkflow.class, Names.remediationWorkflowId(k8sNode));
  }

  protected RemediationStep result(String k8sNode) {
    return client
        .newUntypedWorkflowStub(Names.remediationWorkflowId(k8sNode))
        .getResult(RemediationStep.class);
  }

  protected RemediationState status(String k8sNode) {
    return remediation(k8sNode).status();
  }

  protected RemediationBudgetWorkflow budget() {
    return client.newWorkflowStub(RemediationBudgetWorkflow.class, Names.REMEDIATION_BUDGET_ID);
  }

  /** The budget's status; empty before the first request started it. */
  protected BudgetStatus budgetStatus() {
    try {
      return budget().status();
    } catch (RuntimeException e) {
      return new BudgetStatus(null, null, null);
    }
  }

  protected List<String> nodeCommands(String pod) {
    return client
        .newWorkflowStub(FakeNodeWorkflow.class, Names.nodeWorkflowId("default", pod))
        .commands();
  }

  protected boolean in(String k8sNode, RemediationStep step) {
    try {
      return status(k8sNode).step() == step;
    } catch (RuntimeException e) {
      return false; // not started yet
    }
  }

  protected static boolean hasEvent(RemediationState s, String event) {
    return s.timeline().stream().anyMatch(e -> e.event().equals(event));
  }

  /** Virtual time passes {@code stepSeconds} per step; fails after {@code maxSeconds}. */
  protected void await(String what, long maxSeconds, BooleanSupplier condition) {
    for (long i = 0; i <= maxSeconds; i += 2) {
      if (condition.getAsBoolean()) {
        return;
      }
      env.sleep(Duration.ofSeconds(2));
    }
    fail("timed out after " + maxSeconds + "s (virtual) waiting for: " + what);
  }

  /**
   * The value of counter {@code name} with the given tags (0 if none), once it reached {@code
   * expected} or after two seconds (the scope reports every 10 ms).
   */
  protected double counter(double expected, String name, String... tags) {
    double v = 0;
    for (int i = 0; i < 100; i++) {
      var c = registry.find(name).tags(tags).counter();
      v = c == null ? 0 : c.count();
      if (v == expected) {
        return v;
      }
      sleepMillis(20);
    }
    return v;
  }

  protected static void sleepMillis(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
