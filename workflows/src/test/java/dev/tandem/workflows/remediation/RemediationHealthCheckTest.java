package dev.tandem.workflows.remediation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Tuning;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The optional health-check job between a passed re-check and the return to service. */
class RemediationHealthCheckTest extends RemediationTestBase {
  private static final HealthCheck CHECK = new HealthCheck("#!/bin/sh\nnvidia-smi\n", 40);

  static RemediationPolicy withCheck(HealthCheck hc) {
    RemediationPolicy p = policy();
    return new RemediationPolicy(
        true,
        p.notReadySeconds(),
        null,
        null,
        STEPS,
        p.jobs(),
        p.recheckSeconds(),
        p.replaceMode(),
        p.budget(),
        hc);
  }

  @Test
  void aPassingCheckReturnsTheNodeInOrder() {
    addNode("k1", withCheck(CHECK), Map.of());
    world.healedBy.put("k1", RemediationAction.RESTART_SLURMD);
    trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True: Xid 79");

    assertEquals(RemediationStep.RECOVERED, result("k1"));
    List<String> log = world.logCopy();
    List<String> order =
        log.stream()
            .filter(
                s ->
                    s.startsWith("start-check")
                        || s.startsWith("slurm-undrain")
                        || s.startsWith("check-result")
                        || s.startsWith("end-check")
                        || s.startsWith("release"))
            .toList();
    assertEquals(
        List.of(
            "start-check k1 100",
            "slurm-undrain k1-s",
            "check-result 100 PASSED",
            "end-check k1 100",
            "release k1"),
        order,
        log.toString());
    RemediationState s = status("k1");
    List<String> events = s.timeline().stream().map(RemediationTimelineEntry::event).toList();
    int started = events.indexOf("health-check-started");
    int passed = events.indexOf("health-check-passed");
    assertTrue(started > 0 && passed > started, events.toString());
    assertEquals(
        RemediationStep.HEALTH_CHECKING, s.timeline().get(started).step(), s.timeline().toString());
    assertEquals(RemediationStep.RETURNING, s.timeline().get(passed).step());
    assertTrue(s.timeline().get(passed).detail().contains("exit code 0"), s.timeline().toString());
    assertEquals(1, world.checks.jobs());
  }

  @Test
  void aFailingCheckDrainsAgainAndEscalates() {
    addNode("k1", withCheck(CHECK), Map.of());
    world.healedBy.put("k1", RemediationAction.RESTART_SLURMD);
    world.checks.exitCode = 3;
    trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True: Xid 79");

    assertEquals(RemediationStep.FAILED, result("k1"));
    RemediationState s = status("k1");
    List<RemediationTimelineEntry> failed =
        s.timeline().stream().filter(e -> e.event().equals("health-check-failed")).toList();
    assertTrue(failed.size() >= 3, s.timeline().toString());
    assertTrue(failed.get(0).detail().contains("exit code 3"), failed.toString());
    // the restart rung's own timeout counted on: then reboot, then replace
    assertEquals(1, world.count("reboot k1"), world.logCopy().toString());
    assertEquals(1, world.count("replace k1"));
    assertEquals(1, world.count("restart k1"), "the action is not repeated after a failed check");
    assertEquals(world.count("start-check k1"), world.count("end-check k1"));
    List<String> log = world.logCopy();
    int firstFail = log.indexOf("check-result 100 FAILED");
    assertTrue(firstFail > 0, log.toString());
    assertTrue(
        log.subList(firstFail, log.size()).contains("slurm-drain k1-s"),
        "drained again after the failure: " + log);
    assertTrue(world.slurmReason.get("k1-s") != null, "left drained");
    assertTrue(
        nodeCommands("k1-s").stream()
            .anyMatch(c -> c.equals("drain remediation: Condition: GpuUnhealthy=True: Xid 79")));
  }

  @Test
  void anotherOwnersDrainKeepsTheJobPendingUntilTheTimeoutWhichSaysSo() {
    addNode("k1", withCheck(CHECK), Map.of());
    world.healedBy.put("k1", RemediationAction.RESTART_SLURMD);
    world.slurmReason.put("k1-s", "admin: fan replaced, keep out");
    trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True: Xid 79");

    await("first health check failed", 300, () -> hasEvent(status("k1"), "health-check-failed"));
    RemediationState s = status("k1");
    RemediationTimelineEntry f =
        s.timeline().stream()
            .filter(e -> e.event().equals("health-check-failed"))
            .findFirst()
            .orElseThrow();
    assertTrue(f.detail().startsWith("did not finish in 40s (job 100)"), f.detail());
    assertTrue(f.detail().contains("administrator"), f.detail());
    assertEquals("admin: fan replaced, keep out", world.slurmReason.get("k1-s"));
    assertEquals(1, world.count("end-check k1 100"));
  }

  @Test
  void aContinueAsNewMidCheckKeepsTheJob() {
    Tuning shortHistory = new Tuning(1, 10, 200, 200, 120, true);
    addNode("k1", withCheck(new HealthCheck("exit 0", 5000)), Map.of());
    world.healedBy.put("k1", RemediationAction.RESTART_SLURMD);
    world.checks.runPolls = 1_000_000;
    trigger(
        "k1",
        RemediationTrigger.of(TriggerKind.CONDITION, "GpuUnhealthy=True", "test"),
        shortHistory);
    await("checking", 300, () -> in("k1", RemediationStep.HEALTH_CHECKING));
    String first = runId();
    await("continued as new", 5000, () -> !runId().equals(first));
    RemediationState s = status("k1");
    assertEquals(RemediationStep.HEALTH_CHECKING, s.step());
    assertEquals(100L, s.check().jobId());
    assertEquals(HealthCheckPhase.POLLING, s.check().phase());
    world.checks.runPolls = 0;
    assertEquals(RemediationStep.RECOVERED, result("k1"));
    assertNotEquals(first, runId());
    assertEquals(1, world.checks.jobs(), "one job across runs");
    assertEquals(1, world.count("start-check k1"));
    assertEquals(1, world.count("end-check k1 100"));
  }

  private String runId() {
    return client
        .newUntypedWorkflowStub(Names.remediationWorkflowId("k1"))
        .describe()
        .getExecution()
        .getRunId();
  }
}
