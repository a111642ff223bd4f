package dev.tandem.workflows.catalogue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.TimelineEntry;
import dev.tandem.workflows.remediation.BudgetStatus;
import dev.tandem.workflows.remediation.RemediationBudgetWorkflow;
import dev.tandem.workflows.remediation.RemediationBudgetWorkflowImpl;
import dev.tandem.workflows.remediation.RemediationStep;
import dev.tandem.workflows.remediation.RemediationTestBase;
import dev.tandem.workflows.remediation.RemediationWorkflow;
import dev.tandem.workflows.remediation.RemediationWorkflowImpl;
import dev.tandem.workflows.remediation.TriggerKind;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Bad-input catalogue (docs/reliability.md): the remediation's and the remediation budget's signals
 * answer JSON that does not parse, binary, bytes that are not UTF-8 and each missing required
 * member ({@link RawSignals}) with one {@code signal-rejected} entry (the remediation's timeline,
 * {@code tandem history}; the budget's {@code rejectedSignals}) and one log line, never again on
 * replay; neither acts on them.
 */
class BadRemediationSignalTest extends RemediationTestBase {

  @Test
  void remediationSignals() throws Exception {
    addNode("k1", policy(), Map.of());
    RemediationWorkflow wf = trigger("k1", TriggerKind.NOT_READY, "NotReady for 60s");
    await("observing", 10, () -> in("k1", RemediationStep.OBSERVING));
    Map<String, String> examples =
        Map.of(
            "trigger", "{\"kind\":\"Operator\",\"detail\":\"x\"}",
            "slotGranted", "{\"k8sNode\":\"k1\"}");
    try (RawSignals raws = new RawSignals(client, Names.remediationWorkflowId("k1"))) {
      raws.sendAll(
          RawSignals.cases(RemediationWorkflow.class, examples),
          () ->
              wf.status().timeline().stream()
                  .filter(t -> t.event().equals("signal-rejected"))
                  .map(t -> t.detail())
                  .toList(),
          () -> env.sleep(Duration.ofSeconds(1)));
      raws.replayLogsNothing(RemediationWorkflowImpl.class);
    }
    assertEquals(1, wf.status().triggers().size());
  }

  @Test
  void budgetSignals() throws Exception {
    RemediationBudgetWorkflow wf =
        client.newWorkflowStub(
            RemediationBudgetWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(Names.REMEDIATION_BUDGET_ID)
                .setTaskQueue(Names.TASK_QUEUE)
                .build());
    WorkflowClient.start(wf::run, new BudgetStatus(null, null, null));
    Map<String, String> examples =
        Map.of(
            "acquire", "{\"k8sNode\":\"k9\",\"nodeSets\":[\"default/gpu\"],\"maxPerNodeSet\":1}",
            "release", "{\"k8sNode\":\"k9\",\"note\":\"Recovered\"}");
    try (RawSignals raws = new RawSignals(client, Names.REMEDIATION_BUDGET_ID)) {
      raws.sendAll(
          RawSignals.cases(RemediationBudgetWorkflow.class, examples),
          () -> budget().status().rejectedSignals().stream().map(TimelineEntry::detail).toList(),
          () -> env.sleep(Duration.ofSeconds(1)));
      raws.replayLogsNothing(RemediationBudgetWorkflowImpl.class);
    }
    BudgetStatus s = budget().status();
    assertEquals(List.of(), s.holders());
    assertEquals(List.of(), s.waiting());
  }
}
