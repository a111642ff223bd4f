package dev.tandem.workflows.remediation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.TimeoutAction;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RemediationJobsTest extends RemediationTestBase {

  private void startWithJob(TimeoutAction onTimeout) {
    addNode(
        "k1", policy(new DrainPolicy(100, onTimeout), new RemediationBudget(1, null, 1)), Map.of());
    world.healedBy.put("k1", RemediationAction.RESTART_SLURMD);
    world.jobs.put("k1-s", List.of(42L));
    trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True");
    await("waiting for jobs", 30, () -> in("k1", RemediationStep.WAITING_FOR_JOBS));
    env.sleep(Duration.ofSeconds(60));
    assertTrue(in("k1", RemediationStep.WAITING_FOR_JOBS), "waits up to the timeout");
    assertEquals(0, world.count("force-down"));
    assertEquals(0, world.count("restart"));
  }

  @Test
  void aJobThatEndsWithinTheTimeoutIsWaitedFor() {
    startWithJob(TimeoutAction.FORCE);
    world.jobs.put("k1-s", List.of());
    assertEquals(RemediationStep.RECOVERED, result("k1"));
    assertEquals(0, world.count("force-down"));
  }

  @Test
  void forceMarksTheBusyNodeDownAtTheTimeoutAndGoesOn() {
    startWithJob(TimeoutAction.FORCE);
    assertEquals(RemediationStep.RECOVERED, result("k1"));
    List<String> forced = world.logCopy().stream().filter(l -> l.startsWith("force-down")).toList();
    assertEquals(1, forced.size(), forced.toString());
    assertTrue(
        forced.get(0).startsWith("force-down k1-s tandem:remediation: forced down"),
        forced.toString());
    assertTrue(hasEvent(status("k1"), "jobs-forced"));
  }

  @Test
  void waitKeepsWaitingPastTheTimeoutAndSaysSo() {
    startWithJob(TimeoutAction.WAIT);
    env.sleep(Duration.ofSeconds(300));
    RemediationState s = status("k1");
    assertEquals(RemediationStep.WAITING_FOR_JOBS, s.step());
    assertTrue(hasEvent(s, "jobs-timeout"), s.timeline().toString());
    assertEquals(0, world.count("force-down"));
    world.jobs.put("k1-s", List.of());
    assertEquals(RemediationStep.RECOVERED, result("k1"));
  }

  @Test
  void anAdministratorsDrainIsNeverLifted() {
    addNode("k1", policy(), Map.of());
    world.healedBy.put("k1", RemediationAction.RESTART_SLURMD);
    world.slurmReason.put("k1-s", "bad DIMM, ticket 4711");
    // and a manual hold in the node workflow, which only its owner lifts
    client
        .newWorkflowStub(FakeNodeWorkflow.class, Names.nodeWorkflowId("default", "k1-s"))
        .drain(NodeCommand.of(DrainCause.MANUAL, "alice"));
    trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True");

    assertEquals(RemediationStep.RECOVERED, result("k1"));
    assertEquals("bad DIMM, ticket 4711", world.slurmReason.get("k1-s"));
    List<String> cmds = nodeCommands("k1-s");
    assertTrue(
        cmds.stream()
            .filter(c -> c.startsWith("undrain"))
            .allMatch(c -> c.startsWith("undrain remediation:")),
        cmds.toString());
    assertEquals(1, cmds.stream().filter(c -> c.startsWith("undrain")).count(), cmds.toString());
    // the remediation never touches Slurm drains itself
    for (HistoryEvent e : client.fetchHistory(Names.remediationWorkflowId("k1")).getEvents()) {
      if (e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        String type = e.getActivityTaskScheduledEventAttributes().getActivityType().getName();
        assertTrue(!type.equals("SlurmUndrain") && !type.equals("SlurmDrain"), type);
      }
    }
  }
}
