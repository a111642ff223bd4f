package dev.tandem.workflows.remediation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.TimeoutAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RemediationBudgetTest extends RemediationTestBase {
  private static final DrainPolicy JOBS = new DrainPolicy(100, TimeoutAction.FORCE);

  @Test
  void budgetOfOneHandlesThreeFailingNodesOneAfterAnother() {
    RemediationPolicy p = policy(JOBS, new RemediationBudget(1, null, 1));
    for (String n : List.of("k1", "k2", "k3")) {
      addNode(n, p, Map.of());
      world.healedBy.put(n, RemediationAction.RESTART_SLURMD);
    }
    for (String n : List.of("k1", "k2", "k3")) {
      trigger(n, TriggerKind.CONDITION, "GpuUnhealthy=True");
    }
    await(
        "k2 and k3 wait in line",
        60,
        () -> budgetStatus().waiting().size() == 2 && budgetStatus().holders().size() == 1);
    BudgetStatus b = budgetStatus();
    // in the order the requests reached the budget
    String first = b.holders().get(0).request().k8sNode();
    String second = b.waiting().get(0).request().k8sNode();
    String third = b.waiting().get(1).request().k8sNode();
    assertTrue(b.waiting().get(0).note().contains("NodeSet default/gpu full: 1/1"), b.toString());
    assertTrue(in(second, RemediationStep.WAITING_FOR_SLOT));
    assertTrue(status(second).step() == RemediationStep.WAITING_FOR_SLOT);
    var gauge = registry.find(RemediationBudgetWorkflowImpl.WAITING_GAUGE);
    for (int i = 0; i < 100 && (gauge.gauge() == null || gauge.gauge().value() != 2); i++) {
      sleepMillis(20);
    }
    assertEquals(2, gauge.gauge().value());
    assertTrue(in(third, RemediationStep.WAITING_FOR_SLOT));
    for (String n : List.of("k1", "k2", "k3")) {
      assertEquals(RemediationStep.RECOVERED, result(n));
    }
    // each node was drained, repaired and released before the next one was drained
    List<String> order = new ArrayList<>();
    for (String line : world.logCopy()) {
      if (line.startsWith("slurm-drain") || line.startsWith("release")) {
        order.add(line);
      }
    }
    assertEquals(
        List.of(
            "slurm-drain " + first + "-s", "release " + first,
            "slurm-drain " + second + "-s", "release " + second,
            "slurm-drain " + third + "-s", "release " + third),
        order);
    assertTrue(budgetStatus().holders().isEmpty());
    assertEquals(3, budgetStatus().recent().size());
  }

  @Test
  void aDomainBudgetKeepsTwoNodesOfOneRackApartWhileAnotherRackProceeds() {
    RemediationPolicy p = policy(JOBS, new RemediationBudget(3, "rack", 1));
    addNode("a1", p, Map.of("rack", "A"));
    addNode("a2", p, Map.of("rack", "A"));
    addNode("b1", p, Map.of("rack", "B"));
    // a1 heals only at the reboot, so it holds its slot for a while
    world.healedBy.put("a1", RemediationAction.REBOOT);
    world.healedBy.put("a2", RemediationAction.RESTART_SLURMD);
    world.healedBy.put("b1", RemediationAction.RESTART_SLURMD);
    trigger("a1", TriggerKind.CONDITION, "GpuUnhealthy=True");
    await(
        "a1 holds a slot",
        30,
        () ->
            in("a1", RemediationStep.WAITING_FOR_JOBS)
                || in("a1", RemediationStep.RESTARTING_SLURMD));
    trigger("a2", TriggerKind.CONDITION, "GpuUnhealthy=True");
    trigger("b1", TriggerKind.CONDITION, "GpuUnhealthy=True");

    assertEquals(RemediationStep.RECOVERED, result("b1"));
    assertTrue(in("a2", RemediationStep.WAITING_FOR_SLOT), status("a2").toString());
    BudgetStatus b = budgetStatus();
    assertEquals(1, b.waiting().size(), b.toString());
    assertTrue(b.waiting().get(0).note().contains("domain rack=A full: 1/1"), b.toString());
    assertEquals(RemediationStep.RECOVERED, result("a1"));
    assertEquals(RemediationStep.RECOVERED, result("a2"));
    List<String> log = world.logCopy();
    assertTrue(log.indexOf("release b1") < log.indexOf("release a1"), log.toString());
    assertTrue(log.indexOf("release a1") < log.indexOf("slurm-drain a2-s"), log.toString());
  }

  @Test
  void aGrantToARemediationThatIsGoneIsGivenBackAndTheNextInLineGetsIt() {
    addNode("k1", policy(JOBS, new RemediationBudget(1, null, 1)), Map.of());
    world.healedBy.put("k1", RemediationAction.RESTART_SLURMD);
    // a request whose remediation workflow does not run (it ended before the grant)
    world.requestSlot(new SlotRequest("ghost", List.of("default/gpu"), 1, null, 1, "x"));
    trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True");
    await("k1 recovered", 600, () -> in("k1", RemediationStep.RECOVERED));
    BudgetStatus b = budgetStatus();
    assertEquals("remediation workflow not running", b.recent().get(0).note(), b.toString());
    assertEquals("ghost", b.recent().get(0).request().k8sNode());
  }

  @Test
  void aHolderAskingAgainKeepsItsSlotAndGetsItsGrantAgain() {
    addNode("k1", policy(JOBS, new RemediationBudget(1, null, 1)), Map.of());
    addNode("k2", policy(JOBS, new RemediationBudget(1, null, 1)), Map.of());
    world.jobs.put("k1-s", List.of(1L)); // k1 holds its slot while its job runs
    world.healedBy.put("k1", RemediationAction.RESTART_SLURMD);
    world.healedBy.put("k2", RemediationAction.RESTART_SLURMD);
    trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True");
    await("k1 waits for jobs", 30, () -> in("k1", RemediationStep.WAITING_FOR_JOBS));
    trigger("k2", TriggerKind.CONDITION, "GpuUnhealthy=True");
    await("k2 waits", 30, () -> budgetStatus().waiting().size() == 1);
    world.requestSlot(budgetStatus().holders().get(0).request());
    env.sleep(java.time.Duration.ofSeconds(5));
    BudgetStatus b = budgetStatus();
    assertEquals("k1", b.holders().get(0).request().k8sNode());
    assertEquals(1, b.holders().size());
    assertEquals("k2", b.waiting().get(0).request().k8sNode());
    assertTrue(in("k1", RemediationStep.WAITING_FOR_JOBS), "a late grant changes nothing");
    world.jobs.put("k1-s", List.of());
    assertEquals(RemediationStep.RECOVERED, result("k1"));
    assertEquals(RemediationStep.RECOVERED, result("k2"));
  }
}
