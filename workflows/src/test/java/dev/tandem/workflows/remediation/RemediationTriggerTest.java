package dev.tandem.workflows.remediation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RemediationTriggerTest extends RemediationTestBase {

  @Test
  void aSecondTriggerJoinsTheRunningRemediation() {
    addNode("k1", policy(), Map.of());
    world.healedBy.put("k1", RemediationAction.REBOOT);
    trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True");
    await("restarting", 120, () -> in("k1", RemediationStep.RESTARTING_SLURMD));
    String runId =
        client
            .newUntypedWorkflowStub(Names.remediationWorkflowId("k1"))
            .describe()
            .getExecution()
            .getRunId();
    trigger("k1", TriggerKind.SLURM_REASON, "Kill task failed");
    trigger("k1", TriggerKind.SLURM_REASON, "Kill task failed"); // a duplicate: recorded once

    assertEquals(RemediationStep.RECOVERED, result("k1"));
    RemediationState s = status("k1");
    assertEquals(2, s.triggers().size(), s.triggers().toString());
    assertEquals("Condition: GpuUnhealthy=True", s.cause());
    assertEquals(1, s.timeline().stream().filter(e -> e.event().equals("trigger-joined")).count());
    assertEquals(1, world.count("restart k1"), "joined, not restarted");
    assertEquals(
        runId,
        client
            .newUntypedWorkflowStub(Names.remediationWorkflowId("k1"))
            .describe()
            .getExecution()
            .getRunId());
  }

  @Test
  void notReadyClearedWithinTheThresholdIsDismissedWithoutADrain() {
    addNode("k1", policy(), Map.of());
    trigger("k1", TriggerKind.NOT_READY, "Ready=Unknown");
    env.sleep(java.time.Duration.ofSeconds(30));
    assertTrue(in("k1", RemediationStep.OBSERVING));
    world.problems.put("k1", List.of());

    assertEquals(RemediationStep.DISMISSED, result("k1"));
    assertEquals(List.of(), nodeCommands("k1-s"));
    assertEquals(0, world.count("acquire k1"), "no slot asked");
    assertTrue(hasEvent(status("k1"), "cleared"), status("k1").timeline().toString());
    assertEquals(
        1,
        counter(
            1,
            RemediationMetrics.FINISHED,
            "cause",
            "NotReady",
            "outcome",
            "Dismissed",
            "last_step",
            "none"));
  }

  @Test
  void notReadyStillBadAfterTheThresholdGoesOn() {
    addNode("k1", policy(), Map.of());
    world.healedBy.put("k1", RemediationAction.RESTART_SLURMD);
    trigger("k1", TriggerKind.NOT_READY, "Ready=False");
    env.sleep(java.time.Duration.ofSeconds(50));
    assertTrue(in("k1", RemediationStep.OBSERVING), "waits out the 60 s threshold");
    assertEquals(RemediationStep.RECOVERED, result("k1"));
    assertTrue(hasEvent(status("k1"), "threshold-passed"));
  }

  @Test
  void aConditionTriggerEndsAnObservationEarly() {
    addNode("k1", policy(), Map.of());
    trigger("k1", TriggerKind.NOT_READY, "Ready=Unknown");
    env.sleep(java.time.Duration.ofSeconds(5));
    trigger("k1", TriggerKind.CONDITION, "KernelDeadlock=True");
    await("left observing", 10, () -> !in("k1", RemediationStep.OBSERVING));
  }

  @Test
  void anInvalidTriggerIsRecordedAndNotActedOn() {
    addNode("k1", policy(), Map.of());
    world.healedBy.put("k1", RemediationAction.RESTART_SLURMD);
    // a start with garbage only: nothing to act on
    trigger("k1", Map.of("kind", "Meltdown", "detail", "x"));
    assertEquals(RemediationStep.DISMISSED, result("k1"));
    RemediationState s = status("k1");
    assertEquals("signal-rejected", s.timeline().get(0).event(), s.timeline().toString());
    assertTrue(
        s.timeline().get(0).detail().startsWith("trigger: \"kind\" must be one of"),
        s.timeline().toString());
    assertEquals(List.of(), nodeCommands("k1-s"));
    // garbage joining a valid remediation is recorded and changes nothing
    trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True");
    client
        .newUntypedWorkflowStub(Names.remediationWorkflowId("k1"))
        .signal(Names.SIGNAL_TRIGGER, "not an object");
    assertEquals(RemediationStep.RECOVERED, result("k1"));
    s = status("k1");
    assertEquals(1, s.triggers().size());
    assertTrue(hasEvent(s, "signal-rejected"), s.timeline().toString());
  }

  @Test
  void aDisabledPolicyDismissesAWatcherTriggerAndRunsAnOperatorsWithDefaults() {
    addNode("k1", RemediationPolicy.disabled(), Map.of());
    addNode(
        "k2", RemediationPolicy.disabled(), Map.of()); // the default keeps a NodeSet's last node
    trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True");
    assertEquals(RemediationStep.DISMISSED, result("k1"));
    assertTrue(hasEvent(status("k1"), "policy-disabled"));
    assertEquals(List.of(), nodeCommands("k1-s"));

    world.healedBy.put("k1", RemediationAction.RESTART_SLURMD);
    trigger("k1", TriggerKind.OPERATOR, "bad GPU");
    assertEquals(RemediationStep.RECOVERED, result("k1"));
    RemediationState s = status("k1");
    assertNotNull(s.target());
    assertEquals(RemediationPolicy.defaults(), s.target().policy());
    assertTrue(hasEvent(s, "policy"), s.timeline().toString());
    assertEquals(1, world.count("restart k1"));
  }

  @Test
  void aGoneNodeIsDismissed() {
    trigger("ghost", TriggerKind.CONDITION, "GpuUnhealthy=True");
    assertEquals(RemediationStep.DISMISSED, result("ghost"));
    assertTrue(status("ghost").outcome().contains("does not exist"));
  }
}
