package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.remediation.RemediationInput;
import dev.tandem.workflows.remediation.RemediationState;
import dev.tandem.workflows.remediation.RemediationStep;
import dev.tandem.workflows.remediation.RemediationTrigger;
import dev.tandem.workflows.remediation.RemediationWorkflow;
import dev.tandem.workflows.remediation.SlotRequest;
import dev.tandem.workflows.remediation.TriggerKind;
import dev.tandem.workflows.schedule.PodRequest;
import dev.tandem.workflows.schedule.PodScheduleInput;
import dev.tandem.workflows.schedule.PodScheduleStatus;
import dev.tandem.workflows.schedule.PodScheduleWorkflow;
import dev.tandem.workflows.schedule.SchedulePhase;
import dev.tandem.workflows.schedule.SchedulingConfig;
import dev.tandem.workflows.support.SearchAttributes;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TemporalWorkflowSignals#podSchedule} on Temporal's test server: signal-with-start of the
 * {@code PodSchedule} type with the configured input, idempotent when sent again.
 */
class TemporalWorkflowSignalsTest {
  /** Stands in for the real workflow: records its starts, input and signals. */
  public static final class RecordingPodSchedule implements PodScheduleWorkflow {
    static final List<PodScheduleInput> inputs = new CopyOnWriteArrayList<>();
    static final List<PodView> pods = new CopyOnWriteArrayList<>();
    static final Map<String, String> podAttribute = new ConcurrentHashMap<>();

    @Override
    public SchedulePhase run(PodScheduleInput input) {
      inputs.add(input);
      String sa = Workflow.getTypedSearchAttributes().get(SearchAttributes.POD);
      if (sa != null) {
        podAttribute.put(Workflow.getInfo().getWorkflowId(), sa);
      }
      Workflow.await(() -> false);
      return SchedulePhase.DONE;
    }

    @Override
    public void jobObserved(SlurmJobView job) {}

    @Override
    public void podObserved(PodView pod) {
      pods.add(pod);
    }

    @Override
    public PodScheduleStatus status() {
      return null;
    }
  }

  /** Stands in for the remediation: records starts, triggers, rechecks; ends on "give up". */
  public static final class RecordingRemediation implements RemediationWorkflow {
    static final List<RemediationInput> inputs = new CopyOnWriteArrayList<>();
    static final List<RemediationTrigger> triggers = new CopyOnWriteArrayList<>();
    static final List<String> rechecks = new CopyOnWriteArrayList<>();
    static final Map<String, String> nodeAttribute = new ConcurrentHashMap<>();
    private boolean giveUp;

    @Override
    public RemediationStep run(RemediationInput input) {
      inputs.add(input);
      String sa = Workflow.getTypedSearchAttributes().get(SearchAttributes.K8S_NODE);
      if (sa != null) {
        nodeAttribute.put(Workflow.getInfo().getWorkflowId(), sa);
      }
      Workflow.await(() -> giveUp);
      return RemediationStep.FAILED;
    }

    @Override
    public void trigger(RemediationTrigger t) {
      triggers.add(t);
      giveUp |= "give up".equals(t.detail());
    }

    @Override
    public void recheck() {
      rechecks.add(Workflow.getInfo().getWorkflowId());
    }

    @Override
    public void slotGranted(SlotRequest granted) {}

    @Override
    public RemediationState status() {
      return null;
    }
  }

  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  @BeforeEach
  void start() {
    RecordingPodSchedule.inputs.clear();
    RecordingPodSchedule.pods.clear();
    RecordingPodSchedule.podAttribute.clear();
    RecordingRemediation.inputs.clear();
    RecordingRemediation.triggers.clear();
    RecordingRemediation.rechecks.clear();
    RecordingRemediation.nodeAttribute.clear();
    env = TestWorkflowEnvironment.newInstance();
    env.registerSearchAttribute(Names.SA_POD, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    env.registerSearchAttribute(Names.SA_K8S_NODE, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    Worker w = env.newWorker(Names.TASK_QUEUE);
    w.registerWorkflowImplementationTypes(RecordingPodSchedule.class, RecordingRemediation.class);
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  private static PodView view(String uid) {
    return new PodView(
        true, "train-0", uid, null, "Pending", false, null, false, Instant.EPOCH, null, null);
  }

  @Test
  void podScheduleStartsOneWorkflowWithTheConfiguredInputAndSignalsIt() {
    SchedulingConfig config = SchedulingConfig.defaults();
    Tuning tuning = Tuning.defaults();
    TemporalWorkflowSignals signals = new TemporalWorkflowSignals(client, tuning, config);
    PodRequest r =
        new PodRequest(
            "ml", "train-0", "uid-1", Map.of("cpu", "1"), Map.of(), Map.of(), null, 10L, null);

    signals.podSchedule(r, view("uid-1"));
    signals.podSchedule(r, view("uid-1")); // a restarted watcher sends again

    Wait.until(
        "started and both signals",
        Duration.ofSeconds(20),
        () -> RecordingPodSchedule.pods.size() == 2 && !RecordingPodSchedule.inputs.isEmpty());
    assertEquals(1, RecordingPodSchedule.inputs.size(), "signal-with-start never starts two");
    PodScheduleInput in = RecordingPodSchedule.inputs.get(0);
    assertEquals(r, in.pod());
    assertEquals(config, in.config());
    assertEquals(tuning, in.tuning());
    assertEquals(null, in.state());
    assertEquals("ml/train-0", RecordingPodSchedule.podAttribute.get("schedule/ml/train-0/uid-1"));
    assertTrue(
        signals.workflow("schedule/ml/train-0/uid-1", Names.SIGNAL_POD_OBSERVED, view("uid-1")));
    assertFalse(
        signals.workflow("schedule/ml/train-0/other", Names.SIGNAL_POD_OBSERVED, view("x")));
    // The static summary is not checked: the test server does not keep it (describe: null).
  }

  @Test
  void withoutSearchAttributesNoneIsSet() {
    TemporalWorkflowSignals signals =
        new TemporalWorkflowSignals(client, Tuning.defaults().withSearchAttributes(false));
    PodRequest r =
        new PodRequest("ml", "train-1", "uid-2", Map.of(), Map.of(), Map.of(), null, null, null);
    signals.podSchedule(r, view("uid-2"));
    Wait.until(
        "started and signalled",
        Duration.ofSeconds(20),
        () -> RecordingPodSchedule.pods.size() == 1 && RecordingPodSchedule.inputs.size() == 1);
    assertTrue(RecordingPodSchedule.podAttribute.isEmpty());

    assertEquals(SchedulingConfig.defaults(), RecordingPodSchedule.inputs.get(0).config());
  }

  @Test
  void remediationStartsOneWorkflowPerNodeThatLaterTriggersJoinAndRecheckReaches() {
    Tuning tuning = new Tuning(7, 130, 4000, 100, 900, true);
    TemporalWorkflowSignals signals = new TemporalWorkflowSignals(client, tuning);
    String id = Names.remediationWorkflowId("node-17");
    assertEquals(Optional.empty(), signals.remediationEnded("node-17"), "never ran");

    signals.remediation(
        "node-17", RemediationTrigger.of(TriggerKind.CONDITION, "GpuUnhealthy=True: Xid 79", "w"));
    signals.remediation(
        "node-17", RemediationTrigger.of(TriggerKind.SLURM_REASON, "gpu-a-0: NHC failed", "w"));
    Wait.until(
        "started, both triggers",
        Duration.ofSeconds(20),
        () -> RecordingRemediation.triggers.size() == 2);
    // The worker's tuning: a namespace without Tandem's search attributes must not get upserts.
    assertEquals(
        List.of(new RemediationInput("node-17", null, tuning)), RecordingRemediation.inputs);
    assertEquals(TriggerKind.CONDITION, RecordingRemediation.triggers.get(0).kind());
    assertEquals("SlurmReason: gpu-a-0: NHC failed", RecordingRemediation.triggers.get(1).cause());
    assertEquals("node-17", RecordingRemediation.nodeAttribute.get(id));
    assertEquals(Optional.empty(), signals.remediationEnded("node-17"), "still running");

    // recheck takes no argument: the workflow gets it through workflow(id, signal, null).
    assertTrue(signals.workflow(id, Names.SIGNAL_RECHECK, null));
    Wait.until("recheck", Duration.ofSeconds(20), () -> RecordingRemediation.rechecks.size() == 1);
    assertEquals(
        List.of(0),
        client.fetchHistory(id).getEvents().stream()
            .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
            .map(e -> e.getWorkflowExecutionSignaledEventAttributes())
            .filter(a -> a.getSignalName().equals(Names.SIGNAL_RECHECK))
            .map(a -> a.getInput().getPayloadsCount())
            .toList(),
        "recheck carries no argument (not a JSON null)");
    assertFalse(signals.workflow(Names.remediationWorkflowId("other"), Names.SIGNAL_RECHECK, null));

    signals.remediation("node-17", RemediationTrigger.of(TriggerKind.OPERATOR, "give up", "t"));
    Wait.until(
        "ended", Duration.ofSeconds(20), () -> signals.remediationEnded("node-17").isPresent());
    assertEquals(Optional.of(RemediationStep.FAILED), signals.remediationEnded("node-17"));

    // After the end, a trigger starts a new run, which runs again.
    signals.remediation("node-17", RemediationTrigger.of(TriggerKind.OPERATOR, "again", "t"));
    Wait.until("second run", Duration.ofSeconds(20), () -> RecordingRemediation.inputs.size() == 2);
    assertEquals(Optional.empty(), signals.remediationEnded("node-17"));
  }
}
