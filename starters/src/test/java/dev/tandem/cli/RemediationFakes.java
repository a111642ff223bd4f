package dev.tandem.cli;

import dev.tandem.workflows.remediation.BudgetStatus;
import dev.tandem.workflows.remediation.NodeHealth;
import dev.tandem.workflows.remediation.RemediationBudgetWorkflow;
import dev.tandem.workflows.remediation.RemediationInput;
import dev.tandem.workflows.remediation.RemediationState;
import dev.tandem.workflows.remediation.RemediationStep;
import dev.tandem.workflows.remediation.RemediationTimelineEntry;
import dev.tandem.workflows.remediation.RemediationTrigger;
import dev.tandem.workflows.remediation.RemediationWorkflow;
import dev.tandem.workflows.remediation.SlotRelease;
import dev.tandem.workflows.remediation.SlotRequest;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Small stand-ins registered under the workflow types {@code Remediation} and {@code
 * RemediationBudget}: they answer {@code status} like the real ones, from states a test presets.
 */
final class RemediationFakes {
  private RemediationFakes() {}

  /**
   * A remediation that records its triggers and shows the preset state of its node (or Observing).
   * A trigger whose detail is {@code end:<Step>} walks it through WaitingForSlot and Rebooting (a
   * second each) to that terminal step.
   */
  public static class FakeRemediation implements RemediationWorkflow {
    /** Per Kubernetes node: the state {@code status} shows (triggers and step are live). */
    static final Map<String, RemediationState> preset = new ConcurrentHashMap<>();

    private String node;
    private Instant started;
    private final List<RemediationTrigger> triggers = new ArrayList<>();
    private final List<RemediationTimelineEntry> timeline = new ArrayList<>();
    private RemediationStep step;
    private Instant since;
    private RemediationStep end;

    @Override
    public RemediationStep run(RemediationInput input) {
      node = input.k8sNode();
      started = Instant.ofEpochMilli(Workflow.currentTimeMillis());
      Workflow.await(() -> end != null);
      enter(RemediationStep.WAITING_FOR_SLOT);
      Workflow.sleep(Duration.ofSeconds(1));
      enter(RemediationStep.REBOOTING);
      Workflow.sleep(Duration.ofSeconds(1));
      enter(end);
      return end;
    }

    private void enter(RemediationStep s) {
      step = s;
      since = Instant.ofEpochMilli(Workflow.currentTimeMillis());
      timeline.add(new RemediationTimelineEntry(since, s, "entered", null));
    }

    @Override
    public void trigger(RemediationTrigger t) {
      triggers.add(t);
      timeline.add(
          new RemediationTimelineEntry(
              Instant.ofEpochMilli(Workflow.currentTimeMillis()),
              step,
              "trigger",
              t.cause() + " from " + t.source()));
      if (t.detail() != null && t.detail().startsWith("end:")) {
        end = RemediationStep.valueOf(t.detail().substring(4));
      }
    }

    @Override
    public void recheck() {}

    @Override
    public void slotGranted(SlotRequest granted) {}

    @Override
    public RemediationState status() {
      RemediationState p = preset.get(node);
      if (p != null && step == null) {
        return new RemediationState(
            node,
            p.step(),
            p.stepSince(),
            p.startedAt(),
            triggers,
            p.target(),
            p.rung(),
            p.lastCheck(),
            p.outcome(),
            p.timeline());
      }
      return new RemediationState(
          node,
          step == null ? RemediationStep.OBSERVING : step,
          since == null ? started : since,
          started,
          triggers,
          null,
          -1,
          step == RemediationStep.FAILED ? new NodeHealth(List.of("GpuUnhealthy=True: Xid")) : null,
          step != null && step.terminal() ? step.label() + " (fake)" : null,
          timeline);
    }
  }

  /** A budget that shows the status it was started with. */
  public static class FakeBudget implements RemediationBudgetWorkflow {
    private BudgetStatus status;

    @Override
    public void run(BudgetStatus carried) {
      status = carried;
      Workflow.await(() -> false);
    }

    @Override
    public void acquire(SlotRequest request) {}

    @Override
    public void release(SlotRelease release) {}

    @Override
    public BudgetStatus status() {
      return status;
    }
  }
}
