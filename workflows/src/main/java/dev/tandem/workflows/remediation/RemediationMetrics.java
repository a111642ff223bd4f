package dev.tandem.workflows.remediation;

import com.uber.m3.tally.Scope;
import io.temporal.workflow.Workflow;
import java.util.Map;

/**
 * The remediation metrics, through the workflow's metrics scope (silent during replay, so a metric
 * counts each remediation once). The worker reports that scope to Prometheus, where counters get
 * {@code _total} and timers {@code _seconds} (docs/remediation.md, "Metrics").
 */
public final class RemediationMetrics {
  static final String STARTED = "tandem_remediations_started";
  static final String FINISHED = "tandem_remediations_finished";
  static final String RETURN_TO_SERVICE = "tandem_remediation_return_to_service";
  static final String NONE = "none";

  /**
   * HELP text of every meter the workflows report, by name: Temporal's metrics scope carries no
   * descriptions, so the worker's registry adds these (TandemMetrics in the workers module).
   */
  public static final Map<String, String> HELP =
      Map.of(
          STARTED,
          "Remediations started, by the first trigger's kind",
          FINISHED,
          "Remediations ended, by outcome and the last rung tried",
          RETURN_TO_SERVICE,
          "From a remediation's first trigger to the node back in service (Recovered only)",
          RemediationBudgetWorkflowImpl.WAITING_GAUGE,
          "Nodes waiting for a remediation slot");

  private RemediationMetrics() {}

  static void started(Ladder l) {
    scope().tagged(Map.of("cause", kind(l))).counter(STARTED).inc(1);
  }

  static void finished(Ladder l) {
    LadderStep rung = l.currentRung();
    scope()
        .tagged(
            Map.of(
                "cause",
                kind(l),
                "outcome",
                l.step.label(),
                "last_step",
                rung == null ? NONE : rung.action().label()))
        .counter(FINISHED)
        .inc(1);
    if (l.step == RemediationStep.RECOVERED && l.startedAt != null) {
      long ms = Ladder.now() - l.startedAt.toEpochMilli();
      scope()
          .tagged(Map.of("cause", kind(l)))
          .timer(RETURN_TO_SERVICE)
          .record(com.uber.m3.util.Duration.ofMillis(ms));
    }
  }

  /** The first valid trigger's kind label (a few values: safe as a tag). */
  private static String kind(Ladder l) {
    RemediationTrigger t = l.first();
    return t == null ? NONE : t.kind().label();
  }

  private static Scope scope() {
    return Workflow.getMetricsScope();
  }
}
