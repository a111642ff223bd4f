package dev.tandem.workflows.remediation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.Tuning;
import io.temporal.worker.WorkerFactoryOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A worker restart and a continue-as-new mid-ladder resume at the same step, without repeats. */
class RemediationRestartTest extends RemediationTestBase {
  private static final Tuning SHORT_HISTORY = new Tuning(1, 10, 200, 200, 120, true);

  /** No workflow cache: every workflow task rebuilds the workflow from its history. */
  @Override
  protected WorkerFactoryOptions factoryOptions() {
    return WorkerFactoryOptions.newBuilder().setWorkflowCacheSize(0).build();
  }

  /**
   * The worker goes away mid-step (it stops polling while time passes) and comes back without any
   * cached workflow: like a new worker process, it rebuilds the remediation from its history
   * (factoryOptions: no cache), and must resume at the same step without asking for the reboot
   * again. (A second WorkerFactory in the in-process test environment never gets a task: the
   * stopped factory's in-process long polls keep taking them, unlike a real server's.)
   */
  @Test
  void aWorkerRestartMidStepResumesAtTheSameStepWithoutRepeatingTheAction() {
    addNode("k1", policy(), Map.of());
    world.healedBy.put("k1", RemediationAction.REBOOT);
    world.rebootDone = false;
    trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True");
    await("reboot asked", 200, () -> world.count("reboot k1") == 1);
    env.sleep(Duration.ofSeconds(20));
    RemediationState before = status("k1");
    assertEquals(RemediationStep.REBOOTING, before.step());
    assertNotNull(before.actionAt());

    env.getWorkerFactory().suspendPolling();
    env.sleep(Duration.ofSeconds(60));
    world.rebootDone = true;
    env.getWorkerFactory().resumePolling();
    await("rebooted", 60, () -> hasEvent(status("k1"), "rebooted"));
    assertEquals(RemediationStep.RECOVERED, result("k1"));
    RemediationState after = status("k1");
    // the reboot step was entered once, acted on once, and confirmed in that same step
    assertEquals(
        1,
        after.timeline().stream()
            .filter(e -> e.step() == RemediationStep.REBOOTING && e.event().equals("action"))
            .count(),
        after.timeline().toString());
    assertEquals(1, after.timeline().stream().filter(e -> e.event().equals("timeout")).count());
    assertTrue(
        after.timeline().stream()
            .anyMatch(
                e ->
                    e.step() == RemediationStep.REBOOTING
                        && e.event().equals("rebooted")
                        && e.at().isAfter(before.actionAt().plusSeconds(60))),
        after.timeline().toString());
    assertEquals(1, world.count("reboot k1"), "the reboot was not asked again");
    assertEquals(1, world.count("restart k1"));
  }

  @Test
  void aLongRebootContinuesAsNewAndKeepsItsTokenAndStep() {
    RemediationPolicy p =
        new RemediationPolicy(
            true,
            60,
            null,
            null,
            List.of(
                new LadderStep(RemediationAction.RESTART_SLURMD, 60),
                new LadderStep(RemediationAction.REBOOT, 5000)),
            policy().jobs(),
            10,
            ReplaceMode.MARK,
            new RemediationBudget(1, null, 1)); // written: k1 is its NodeSet's only node
    addNode("k1", p, Map.of());
    world.healedBy.put("k1", RemediationAction.REBOOT);
    world.rebootDone = false;
    start("k1", SHORT_HISTORY);
    String first = runId("k1");
    await("continued as new", 3000, () -> !runId("k1").equals(first));
    RemediationState s = status("k1");
    assertEquals(RemediationStep.REBOOTING, s.step());
    assertTrue(hasEvent(s, "continued-as-new"), s.timeline().toString());
    world.rebootDone = true;
    assertEquals(RemediationStep.RECOVERED, result("k1"));
    List<String> reboots = world.logCopy().stream().filter(l -> l.startsWith("reboot k1")).toList();
    assertEquals(1, reboots.size(), "asked once, across runs: " + reboots);
    assertEquals(1, counter(1, RemediationMetrics.STARTED, "cause", "Condition"));
  }

  @Test
  void aWaitForeverJobWaitContinuesAsNewInsteadOfGrowingTheHistory() {
    addNode("k1", policy(DrainPolicy.waitForever(), new RemediationBudget(1, null, 1)), Map.of());
    world.healedBy.put("k1", RemediationAction.RESTART_SLURMD);
    world.jobs.put("k1-s", List.of(7L));
    start("k1", SHORT_HISTORY);
    String first = runId("k1");
    await("continued as new", 3000, () -> !runId("k1").equals(first));
    assertEquals(RemediationStep.WAITING_FOR_JOBS, status("k1").step());
    world.jobs.put("k1-s", List.of());
    assertEquals(RemediationStep.RECOVERED, result("k1"));
    assertNotEquals(first, runId("k1"));
    assertEquals(1, world.count("restart k1"));
  }

  private void start(String k8sNode, Tuning tuning) {
    trigger(
        k8sNode, RemediationTrigger.of(TriggerKind.CONDITION, "GpuUnhealthy=True", "test"), tuning);
  }

  private String runId(String k8sNode) {
    return client
        .newUntypedWorkflowStub(Names.remediationWorkflowId(k8sNode))
        .describe()
        .getExecution()
        .getRunId();
  }
}
