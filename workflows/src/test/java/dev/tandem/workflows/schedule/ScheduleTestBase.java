package dev.tandem.workflows.schedule;

import static org.junit.jupiter.api.Assertions.fail;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Tuning;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A Temporal test environment (in-process, time skipping) with {@link PodScheduleWorkflowImpl} and
 * {@link PodGroupWorkflowImpl} on Tandem's queue and a {@link FakeScheduling} world behind its
 * activities.
 */
public abstract class ScheduleTestBase {
  protected static final Tuning TUNING = new Tuning(1, 10, 4000, 200, 120, true);
  protected static final SchedulingConfig CONFIG =
      new SchedulingConfig(
          Map.of("nvidia.com/gpu", "gpu"),
          "nvidia.com/gpu.product",
          Map.of("high", new PriorityMapping("high", null)),
          "batch",
          Map.of(),
          60,
          5);

  protected TestWorkflowEnvironment env;
  protected WorkflowClient client;
  protected FakeScheduling world;

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    for (String sa : List.of(Names.SA_POD, Names.SA_JOB_ID, Names.SA_PHASE, Names.SA_K8S_NODE)) {
      env.registerSearchAttribute(sa, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    }
    world = new FakeScheduling();
    var w = env.newWorker(Names.TASK_QUEUE);
    w.registerWorkflowImplementationTypes(
        PodScheduleWorkflowImpl.class, PodGroupWorkflowImpl.class);
    w.registerActivitiesImplementations(world);
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  protected static PodRequest request(String name, Map<String, String> annotations, long grace) {
    return new PodRequest(
        "default",
        name,
        "uid-" + name,
        Map.of("cpu", "500m", "memory", "1Gi"),
        annotations,
        Map.of(),
        "high",
        grace,
        null);
  }

  protected PodScheduleWorkflow schedule(PodRequest r, Tuning tuning) {
    return schedule(r, tuning, Names.TASK_QUEUE);
  }

  /** The pod appears and its workflow starts on {@code queue}. */
  protected PodScheduleWorkflow schedule(PodRequest r, Tuning tuning, String queue) {
    world.addPod(r.name(), r.uid());
    PodScheduleWorkflow wf =
        client.newWorkflowStub(
            PodScheduleWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(PodScheduleWorkflowImpl.workflowId(r))
                .setTaskQueue(queue)
                .build());
    WorkflowClient.start(wf::run, new PodScheduleInput(r, CONFIG, tuning, null));
    return wf;
  }

  protected PodScheduleWorkflow schedule(String name) {
    return schedule(request(name, Map.of(), 30), TUNING);
  }

  /** Virtual time passes one second per step; fails after {@code maxSeconds}. */
  protected void await(String what, long maxSeconds, BooleanSupplier condition) {
    for (long i = 0; i <= maxSeconds; i++) {
      if (condition.getAsBoolean()) {
        return;
      }
      env.sleep(Duration.ofSeconds(1));
    }
    fail("timed out after " + maxSeconds + "s (virtual) waiting for: " + what);
  }

  protected static boolean in(PodScheduleWorkflow wf, SchedulePhase p) {
    return wf.status().phase() == p;
  }

  protected static SchedulePhase result(PodScheduleWorkflow wf) {
    return WorkflowStub.fromTyped(wf).getResult(SchedulePhase.class);
  }

  /** Submitted, started by Slurm on slurm node n1 (k8s node k1, signalled), bound. */
  protected PodScheduleWorkflow running(String name) {
    world.slurmToK8s.put("n1", "k1");
    PodScheduleWorkflow wf = schedule(name);
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    long id = world.jobOf("uid-" + name);
    wf.jobObserved(world.setJob(id, "RUNNING", "None", List.of("n1")));
    // Less than the pending phase's resync (10 s): the signal alone must start the binding.
    await("running", 5, () -> in(wf, SchedulePhase.RUNNING));
    return wf;
  }

  /**
   * Pod {@code name} runs, its job is preempted, and the pod is gone (the watcher says so) while
   * the eviction answers, so the server refuses the task that evicted it and the retry sees both.
   * Returns the workflow; the caller awaits its end.
   */
  protected PodScheduleWorkflow preemptedWhileThePodGoes(String name) {
    PodScheduleWorkflow wf = running(name);
    PodRequest r = request(name, Map.of(), 30);
    world.duringEvict =
        () -> {
          world.pods.remove(name);
          client
              .newUntypedWorkflowStub(PodScheduleWorkflowImpl.workflowId(r))
              .signal("podObserved", dev.tandem.workflows.model.PodView.absent(name));
        };
    long id = world.jobOf("uid-" + name);
    wf.jobObserved(world.setJob(id, "PREEMPTED", "None", List.of("n1")));
    return wf;
  }

  /** The history events of the pod workflow of pod {@code name} (as {@link #request} makes it). */
  protected List<HistoryEvent> history(String name) {
    return client
        .fetchHistory(PodScheduleWorkflowImpl.workflowId(request(name, Map.of(), 30)))
        .getEvents();
  }

  /** The local activities the workflow ran, by type, counted from its history's markers. */
  protected Map<String, Long> localActivities(String name) {
    return history(name).stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED)
        .map(e -> e.getMarkerRecordedEventAttributes().getDetailsMap().get("type"))
        .filter(p -> p != null)
        .map(p -> p.getPayloads(0).getData().toStringUtf8().replace("\"", ""))
        .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
  }
}
