package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.uber.m3.tally.NoopScope;
import dev.tandem.devstack.temporal.LocalTemporal;
import dev.tandem.workers.Env;
import dev.tandem.workers.TandemConfig;
import dev.tandem.workers.TandemModule;
import dev.tandem.workers.TandemWorker;
import dev.tandem.workers.TemporalConnection;
import dev.tandem.workers.WorkerVersioning;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.remediation.RemediationBudgetWorkflow;
import dev.tandem.workflows.remediation.SlotRelease;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.api.enums.v1.VersioningBehavior;
import io.temporal.api.workflow.v1.WorkflowExecutionVersioningInfo;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import io.temporal.workflow.WorkflowVersioningBehavior;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Worker Versioning on the real Temporal server (docs/upgrading.md, "Worker Versioning"): two
 * builds of Tandem's worker, each made the way the worker makes itself ({@link
 * TandemWorker#newWorker}: Tandem's deployment options and workflow types; {@link
 * WorkerVersioning#becomeCurrent}: the start-up step that makes a build current). Build A runs
 * first; build B starts and becomes current. Then a pinned execution started on A keeps running its
 * tasks (and activities) on A and finishes there, while executions started afterwards, and
 * auto-upgrade ones started on A, run on B; Tandem's own {@code RemediationBudget} (auto-upgrade)
 * moves to B. Checked through each execution's versioning info (describe) and through the worker
 * that ran each step.
 *
 * <p>The probe workflows stand in for Tandem's pod, gang and remediation workflows (pinned) and the
 * node and NodeSet ones (auto-upgrade), which need Kubernetes and Slurm to start;
 * WorkflowVersioningBehaviorTest holds each of Tandem's workflow types to its behaviour.
 */
class WorkerVersioningIT {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @ActivityInterface
  public interface Who {
    String who();
  }

  /** Answers the build it was registered on: which worker ran an activity. */
  record WhoImpl(String build) implements Who {
    @Override
    public String who() {
      return build;
    }
  }

  /** Records, per step, the build of the worker that ran the workflow task and the activity. */
  public interface Probe {
    @WorkflowMethod
    List<String> run();

    @SignalMethod
    void step();

    @SignalMethod
    void finish();

    @QueryMethod
    List<String> ran();
  }

  @WorkflowInterface
  public interface PinnedProbe extends Probe {}

  @WorkflowInterface
  public interface AutoProbe extends Probe {}

  abstract static class ProbeImpl implements Probe {
    private final Who who =
        Workflow.newActivityStub(
            Who.class,
            ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(10)).build());
    private final List<String> ran = new ArrayList<>();
    private final String build;
    private int steps;

    /** {@code build}: the build of the worker that made this instance (it runs its tasks). */
    ProbeImpl(String build) {
      this.build = build;
    }

    private boolean finish;

    List<String> loop() {
      while (true) {
        Workflow.await(() -> steps > 0 || finish);
        if (steps == 0) {
          return ran;
        }
        steps--;
        ran.add("task " + build + ", activity " + who.who());
      }
    }

    @Override
    public void step() {
      steps++;
    }

    @Override
    public void finish() {
      finish = true;
    }

    @Override
    public List<String> ran() {
      return ran;
    }
  }

  public static class PinnedProbeImpl extends ProbeImpl implements PinnedProbe {
    PinnedProbeImpl(String build) {
      super(build);
    }

    @Override
    @WorkflowVersioningBehavior(io.temporal.common.VersioningBehavior.PINNED)
    public List<String> run() {
      return loop();
    }
  }

  public static class AutoProbeImpl extends ProbeImpl implements AutoProbe {
    AutoProbeImpl(String build) {
      super(build);
    }

    @Override
    @WorkflowVersioningBehavior(io.temporal.common.VersioningBehavior.AUTO_UPGRADE)
    public List<String> run() {
      return loop();
    }
  }

  /** One build of the worker, made by Tandem's code from the environment an operator would set. */
  record Build(String id, TandemConfig cfg, WorkflowServiceStubs stubs, WorkerFactory factory)
      implements AutoCloseable {
    static Build start(LocalTemporal temporal, String id) {
      Map<String, String> env = new HashMap<>();
      env.put("TEMPORAL_ADDRESS", temporal.address());
      env.put("TANDEM_BUILD_ID", id);
      env.put("TANDEM_IDENTITY", "worker-" + id);
      TandemConfig cfg = TandemConfig.from(new Env(env));
      WorkflowServiceStubs stubs = TemporalConnection.connect(cfg.temporal(), new NoopScope());
      WorkerFactory factory =
          WorkerFactory.newInstance(TandemModule.workflowClient(stubs, cfg.temporal().namespace()));
      Worker worker = TandemWorker.newWorker(factory, cfg.worker(), cfg.versioning());
      worker.registerWorkflowImplementationFactory(
          PinnedProbe.class, () -> new PinnedProbeImpl(id));
      worker.registerWorkflowImplementationFactory(AutoProbe.class, () -> new AutoProbeImpl(id));
      worker.registerActivitiesImplementations(new WhoImpl(id));
      factory.start();
      return new Build(id, cfg, stubs, factory);
    }

    /** The worker's start-up step: make this build the deployment's current version. */
    WorkerVersioning.Outcome becomeCurrent() throws InterruptedException {
      try (WorkerVersioning.Becoming b =
          WorkerVersioning.becomeCurrent(
              stubs, cfg.temporal().namespace(), cfg.versioning(), cfg.watching().identity())) {
        assertTrue(b.await(WAIT), "build " + id + " not current: " + b.pending());
        return b.outcome();
      }
    }

    @Override
    public void close() {
      factory.shutdownNow();
      stubs.shutdownNow();
    }
  }

  @Test
  void pinnedExecutionsFinishOnTheirBuildWhileNewAndAutoUpgradeOnesRunOnTheCurrentOne()
      throws Exception {
    try (LocalTemporal temporal = LocalTemporal.startTemporary();
        Build a = Build.start(temporal, "it-a")) {
      assertEquals("tandem", a.cfg().versioning().deploymentName());
      assertEquals(WorkerVersioning.Outcome.SET, a.becomeCurrent());
      assertEquals(WorkerVersioning.Outcome.ALREADY, a.becomeCurrent());
      WorkflowClient client = a.factory().getWorkflowClient();

      PinnedProbe pinnedOnA = start(client, PinnedProbe.class, "pinned-on-a");
      AutoProbe autoOnA = start(client, AutoProbe.class, "auto-on-a");
      RemediationBudgetWorkflow budget =
          client.newWorkflowStub(
              RemediationBudgetWorkflow.class,
              WorkflowOptions.newBuilder()
                  .setTaskQueue(Names.TASK_QUEUE)
                  .setWorkflowId(Names.REMEDIATION_BUDGET_ID)
                  .build());
      WorkflowClient.start(budget::run, null);
      pinnedOnA.step();
      autoOnA.step();
      awaitRan(pinnedOnA::ran, List.of("task it-a, activity it-a"));
      awaitRan(autoOnA::ran, List.of("task it-a, activity it-a"));
      assertVersion(client, "pinned-on-a", VersioningBehavior.VERSIONING_BEHAVIOR_PINNED, "it-a");
      assertVersion(
          client, "auto-on-a", VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE, "it-a");
      awaitVersion(
          client,
          Names.REMEDIATION_BUDGET_ID,
          VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE,
          "it-a");

      try (Build b = Build.start(temporal, "it-b")) {
        assertEquals(WorkerVersioning.Outcome.SET, b.becomeCurrent());
        PinnedProbe pinnedOnB = start(client, PinnedProbe.class, "pinned-on-b");
        AutoProbe autoOnB = start(client, AutoProbe.class, "auto-on-b");
        for (Probe p : List.of(pinnedOnA, autoOnA, pinnedOnB, autoOnB)) {
          p.step();
        }
        budget.release(new SlotRelease("no-such-node", "WorkerVersioningIT"));

        awaitRan(pinnedOnA::ran, List.of("task it-a, activity it-a", "task it-a, activity it-a"));
        // Moved to B: B replayed its first step (whose activity A ran) and ran the second.
        awaitRan(autoOnA::ran, List.of("task it-b, activity it-a", "task it-b, activity it-b"));
        awaitRan(pinnedOnB::ran, List.of("task it-b, activity it-b"));
        awaitRan(autoOnB::ran, List.of("task it-b, activity it-b"));
        assertVersion(client, "pinned-on-a", VersioningBehavior.VERSIONING_BEHAVIOR_PINNED, "it-a");
        assertVersion(
            client, "auto-on-a", VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE, "it-b");
        assertVersion(client, "pinned-on-b", VersioningBehavior.VERSIONING_BEHAVIOR_PINNED, "it-b");
        awaitVersion(
            client,
            Names.REMEDIATION_BUDGET_ID,
            VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE,
            "it-b");

        // Never replayed on B: A ran every task of the pinned execution, and finishes it.
        pinnedOnA.finish();
        List<String> result =
            WorkflowStub.fromTyped(pinnedOnA)
                .getResult(WAIT.toSeconds(), TimeUnit.SECONDS, List.class);
        assertEquals(List.of("task it-a, activity it-a", "task it-a, activity it-a"), result);
        autoOnA.finish();
        WorkflowStub.fromTyped(autoOnA).getResult(WAIT.toSeconds(), TimeUnit.SECONDS, List.class);
      }
    }
  }

  private static <T> T start(WorkflowClient client, Class<T> type, String id) {
    T stub =
        client.newWorkflowStub(
            type,
            WorkflowOptions.newBuilder().setTaskQueue(Names.TASK_QUEUE).setWorkflowId(id).build());
    WorkflowClient.start(((Probe) stub)::run);
    return stub;
  }

  private static void awaitRan(Supplier<List<String>> ran, List<String> expected)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    List<String> last = null;
    while (System.nanoTime() < deadline) {
      last = ran.get();
      if (last.size() >= expected.size()) {
        break;
      }
      Thread.sleep(200);
    }
    assertEquals(expected, last);
  }

  private static WorkflowExecutionVersioningInfo versioning(WorkflowClient client, String id) {
    return client
        .newUntypedWorkflowStub(id)
        .describe()
        .getRawDescription()
        .getWorkflowExecutionInfo()
        .getVersioningInfo();
  }

  private static void assertVersion(
      WorkflowClient client, String id, VersioningBehavior behavior, String buildId) {
    WorkflowExecutionVersioningInfo v = versioning(client, id);
    assertEquals(behavior, v.getBehavior(), id + ": " + v);
    assertEquals("tandem", v.getDeploymentVersion().getDeploymentName(), id + ": " + v);
    assertEquals(buildId, v.getDeploymentVersion().getBuildId(), id + ": " + v);
  }

  /** For a workflow whose tasks this test does not observe: until it has run on the build. */
  private static void awaitVersion(
      WorkflowClient client, String id, VersioningBehavior behavior, String buildId)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline
        && !buildId.equals(versioning(client, id).getDeploymentVersion().getBuildId())) {
      Thread.sleep(200);
    }
    assertVersion(client, id, behavior, buildId);
  }
}
