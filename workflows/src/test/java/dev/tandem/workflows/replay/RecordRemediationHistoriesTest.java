package dev.tandem.workflows.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.TimeoutAction;
import dev.tandem.workflows.remediation.HealthCheck;
import dev.tandem.workflows.remediation.RemediationAction;
import dev.tandem.workflows.remediation.RemediationBudget;
import dev.tandem.workflows.remediation.RemediationPolicy;
import dev.tandem.workflows.remediation.RemediationStep;
import dev.tandem.workflows.remediation.RemediationTestBase;
import dev.tandem.workflows.remediation.TriggerKind;
import dev.tandem.workflows.testing.Histories;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Records the remediation and budget workflows' baseline histories that {@link ReplayTest} replays.
 * Runs only on request ({@link Histories}).
 */
class RecordRemediationHistoriesTest extends RemediationTestBase {

  @Test
  void recordRemediation() {
    Histories.assumeRecording();
    var budgetOfOne =
        policy(new DrainPolicy(100, TimeoutAction.FORCE), new RemediationBudget(1, "rack", 1));
    // the whole ladder to Failed: a busy node forced down, every rung timing out, a garbage
    // trigger and a second trigger on the way
    addNode("rec-failed", budgetOfOne, Map.of("rack", "A"));
    world.jobs.put("rec-failed-s", List.of(42L));
    trigger("rec-failed", TriggerKind.CONDITION, "GpuUnhealthy=True: Xid 79");
    await("restarting", 300, () -> in("rec-failed", RemediationStep.RESTARTING_SLURMD));
    client
        .newUntypedWorkflowStub(Names.remediationWorkflowId("rec-failed"))
        .signal(Names.SIGNAL_TRIGGER, Map.of("kind", "Meltdown"));
    trigger("rec-failed", TriggerKind.SLURM_REASON, "Not responding");
    remediation("rec-failed").recheck();
    assertEquals(RemediationStep.FAILED, result("rec-failed"));
    write("remediation-failed", Names.remediationWorkflowId("rec-failed"));

    // NotReady past the threshold, waiting for the slot, recovered after the restart
    addNode("rec-recovered", budgetOfOne, Map.of("rack", "A"));
    addNode("rec-other", budgetOfOne, Map.of("rack", "A"));
    world.healedBy.put("rec-recovered", RemediationAction.RESTART_SLURMD);
    world.healedBy.put("rec-other", RemediationAction.REBOOT);
    trigger("rec-other", TriggerKind.OPERATOR, "bad GPU");
    await(
        "rec-other holds the slot",
        60,
        () ->
            !in("rec-other", RemediationStep.WAITING_FOR_SLOT)
                && !in("rec-other", RemediationStep.OBSERVING));
    trigger("rec-recovered", TriggerKind.NOT_READY, "Ready=Unknown");
    assertEquals(RemediationStep.RECOVERED, result("rec-other"));
    assertEquals(RemediationStep.RECOVERED, result("rec-recovered"));
    write("remediation-recovered", Names.remediationWorkflowId("rec-recovered"));
    write("remediation-budget", Names.REMEDIATION_BUDGET_ID);
  }

  /** A health-check job that fails once (drained again, back to the rung) and then passes. */
  @Test
  void recordHealthCheck() {
    Histories.assumeRecording();
    RemediationPolicy p = policy();
    addNode(
        "rec-check",
        new RemediationPolicy(
            true,
            p.notReadySeconds(),
            null,
            null,
            STEPS,
            p.jobs(),
            p.recheckSeconds(),
            p.replaceMode(),
            p.budget(),
            new HealthCheck("#!/bin/sh\nexit 0\n", 40)),
        Map.of());
    world.healedBy.put("rec-check", RemediationAction.RESTART_SLURMD);
    world.checks.exitCode = 3;
    trigger("rec-check", TriggerKind.CONDITION, "GpuUnhealthy=True: Xid 79");
    await(
        "the first check failed",
        300,
        () -> world.logCopy().stream().anyMatch(l -> l.startsWith("end-check rec-check")));
    world.checks.exitCode = 0;
    assertEquals(RemediationStep.RECOVERED, result("rec-check"));
    write("remediation-healthcheck", Names.remediationWorkflowId("rec-check"));
  }

  private void write(String name, String workflowId) {
    Histories.record(client, name, workflowId, null);
  }
}
