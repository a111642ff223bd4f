package dev.tandem.workflows.remediation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RemediationLadderTest extends RemediationTestBase {

  @Test
  void restartThatHealsStopsTheLadderAndReturnsTheNode() {
    addNode("k1", policy(), Map.of());
    world.healedBy.put("k1", RemediationAction.RESTART_SLURMD);
    trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True: Xid 79");

    assertEquals(RemediationStep.RECOVERED, result("k1"));
    assertEquals(1, world.count("restart k1"));
    assertEquals(0, world.count("reboot k1"), "stopped at the first re-check that passed");
    assertEquals(0, world.count("replace k1"));
    assertEquals(
        List.of(
            "drain remediation: Condition: GpuUnhealthy=True: Xid 79",
            "undrain remediation: recovered: Condition: GpuUnhealthy=True: Xid 79"),
        nodeCommands("k1-s"));
    RemediationState s = status("k1");
    assertTrue(hasEvent(s, "recheck-passed"), s.timeline().toString());
    assertEquals(1, world.count("release k1"));
    assertEquals(
        1,
        counter(
            1,
            RemediationMetrics.FINISHED,
            "cause",
            "Condition",
            "outcome",
            "Recovered",
            "last_step",
            "RestartSlurmd"));
    assertEquals(1, counter(1, RemediationMetrics.STARTED, "cause", "Condition"));
    assertTrue(
        world.events.get(0).contains("Normal RemediationRecovered"), world.events.toString());
  }

  @Test
  void failedRechecksEscalateToRebootWhichHeals() {
    addNode("k1", policy(), Map.of());
    world.healedBy.put("k1", RemediationAction.REBOOT);
    trigger("k1", TriggerKind.SLURM_REASON, "Not responding");

    assertEquals(RemediationStep.RECOVERED, result("k1"));
    List<String> log = world.logCopy();
    assertEquals(1, world.count("restart k1"));
    assertEquals(1, world.count("reboot k1"));
    assertEquals(0, world.count("replace k1"));
    assertTrue(log.indexOf("restart k1") < indexStarting(log, "reboot k1"), log.toString());
    RemediationState s = status("k1");
    List<RemediationTimelineEntry> timeouts =
        s.timeline().stream().filter(e -> e.event().equals("timeout")).toList();
    assertEquals(1, timeouts.size(), s.timeline().toString());
    // a transition's line belongs to the step it enters (as in the node timeline)
    assertEquals(RemediationStep.REBOOTING, timeouts.get(0).step());
    assertTrue(
        timeouts.get(0).detail().startsWith("RestartSlurmd did not bring"), timeouts.toString());
    assertEquals(1, s.rung());
    assertEquals(
        1,
        counter(
            1,
            RemediationMetrics.FINISHED,
            "cause",
            "SlurmReason",
            "outcome",
            "Recovered",
            "last_step",
            "Reboot"));
  }

  @Test
  void aNodeThatNeverHealsEndsFailedDrainedWithAReasonAndAnEvent() {
    addNode("k1", policy(), Map.of());
    trigger("k1", TriggerKind.OPERATOR, "GPU 3 throws Xid 79");

    assertEquals(RemediationStep.FAILED, result("k1"));
    assertEquals(1, world.count("restart k1"));
    assertEquals(1, world.count("reboot k1"));
    assertEquals(1, world.count("replace k1 MARK"));
    RemediationState s = status("k1");
    assertTrue(s.outcome().contains("tried RestartSlurmd, Reboot, Replace"), s.outcome());
    List<String> cmds = nodeCommands("k1-s");
    assertTrue(cmds.stream().noneMatch(c -> c.startsWith("undrain")), cmds.toString());
    assertTrue(
        cmds.get(cmds.size() - 1).startsWith("drain remediation: remediation failed"),
        cmds.toString());
    // the Slurm node stays drained, with the failure as its reason
    assertTrue(
        world.slurmReason.get("k1-s").startsWith("tandem:remediation: remediation failed"),
        world.slurmReason.toString());
    assertTrue(world.events.get(0).contains("Warning RemediationFailed"), world.events.toString());
    assertEquals(1, world.count("release k1"));
    assertEquals(
        1,
        counter(
            1,
            RemediationMetrics.FINISHED,
            "cause",
            "Operator",
            "outcome",
            "Failed",
            "last_step",
            "Replace"));
    assertEquals(0, counter(0, RemediationMetrics.FINISHED, "outcome", "Recovered"));
  }

  /** Replace with DELETE: the old Node object is gone for good; its Slurm nodes decide. */
  @Test
  void aDeletedNodeWhoseSlurmNodesAreHealthyElsewhereIsRecovered() {
    addNode("k1", deleting(), Map.of());
    trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True: Xid 79");

    assertEquals(RemediationStep.RECOVERED, result("k1"));
    assertEquals(1, world.count("replace k1 DELETE"));
    RemediationState s = status("k1");
    assertTrue(s.outcome().contains("Replace"), s.outcome());
  }

  /** A gone node is no excuse for Slurm nodes that are still not back. */
  @Test
  void aDeletedNodeWhoseSlurmNodesStayDownEndsFailed() {
    addNode("k1", deleting(), Map.of());
    world.slurmProblemsAfterDelete.put("k1", List.of("k1-s: DOWN (Not responding)"));
    trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True: Xid 79");

    assertEquals(RemediationStep.FAILED, result("k1"));
    assertTrue(status("k1").outcome().contains("k1-s: DOWN"), status("k1").outcome());
  }

  private static RemediationPolicy deleting() {
    return new RemediationPolicy(
        true, 60, null, null, STEPS, policy().jobs(), 10, ReplaceMode.DELETE, ONE);
  }

  @Test
  void aRecheckSignalChecksAtOnceInsteadOfAtTheNextTick() {
    RemediationPolicy slow =
        new RemediationPolicy(
            true, 60, null, null, STEPS, policy().jobs(), 50, ReplaceMode.MARK, ONE);
    addNode("k1", slow, Map.of());
    RemediationWorkflow wf = trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True");
    await("restarting", 120, () -> in("k1", RemediationStep.RESTARTING_SLURMD));
    env.sleep(java.time.Duration.ofSeconds(52)); // the first re-check after the action fails
    world.problems.put("k1", List.of());
    wf.recheck();
    // well before the next tick (50 s), the signal alone re-checks
    await("recovered", 10, () -> in("k1", RemediationStep.RECOVERED));
  }

  private static int indexStarting(List<String> log, String prefix) {
    for (int i = 0; i < log.size(); i++) {
      if (log.get(i).startsWith(prefix)) {
        return i;
      }
    }
    return -1;
  }
}
