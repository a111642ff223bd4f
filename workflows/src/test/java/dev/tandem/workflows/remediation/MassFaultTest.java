package dev.tandem.workflows.remediation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Many nodes unhealthy at once: the budget drains up to its limit and keeps the rest in service,
 * and the NodeSet says why (docs/remediation.md, "Budgets"; docs/runbook.md, "Mass fault"). Real
 * NodeSet and node workflows on the fake cluster, the real budget workflow; the test sends what the
 * node watcher sends ({@code acquire}/{@code release} of a drain) for Kubernetes nodes k0..k2, each
 * hosting one slurmd pod gpu-0..gpu-2.
 */
class MassFaultTest extends WorkflowTestBase {
  private static final String BUDGET_QUEUE = "budget";

  @Override
  protected void moreWorkers(TestWorkflowEnvironment env) {
    env.newWorker(BUDGET_QUEUE)
        .registerWorkflowImplementationTypes(RemediationBudgetWorkflowImpl.class);
  }

  private void ask(String signal, Object payload) {
    client
        .newUntypedWorkflowStub(
            "RemediationBudget",
            WorkflowOptions.newBuilder()
                .setWorkflowId(Names.REMEDIATION_BUDGET_ID)
                .setTaskQueue(BUDGET_QUEUE)
                .build())
        .signalWithStart(signal, new Object[] {payload}, new Object[] {null});
  }

  /** NodeSet default/gpu on k0..k2, no cluster limit to speak of. */
  private static final BudgetShape THREE = shape(Map.of("gpu", 3), 100);

  /** NodeSets {@code name -> pods}, pod i of NodeSet s on Kubernetes node {@code <s>-k<i>}. */
  private static BudgetShape shape(Map<String, Integer> nodeSets, int clusterBudget) {
    List<BudgetShape.Placement> placed = new ArrayList<>();
    nodeSets.forEach(
        (name, n) -> {
          for (int i = 0; i < n; i++) {
            placed.add(new BudgetShape.Placement(NS + "/" + name, name + "-k" + i));
          }
        });
    return BudgetShape.of(placed, clusterBudget);
  }

  private void unhealthy(int i, RemediationBudget b, String domain) {
    unhealthy("gpu", "k" + i, i, b, THREE, domain);
  }

  private void unhealthy(
      String nodeSet, String k8sNode, int i, RemediationBudget b, BudgetShape s, String domain) {
    NodeRef pod = NodeRef.of(NS, nodeSet, i);
    ask(
        Names.SIGNAL_ACQUIRE,
        SlotRequest.drain(k8sNode, List.of(pod), b, s, domain, "GpuUnhealthy=True: Xid 79"));
  }

  private void healthy(int i) {
    ask(Names.SIGNAL_RELEASE, new SlotRelease("k" + i, "healthy again", SlotRequest.DRAIN));
  }

  private List<String> drained() {
    return drained("gpu");
  }

  private List<String> drained(String... nodeSets) {
    List<String> out = new ArrayList<>();
    for (String s : nodeSets) {
      for (int i = 0; i < 3; i++) {
        var v = cluster.slurmNode(s + "-" + i);
        if (v != null && v.drainFlag()) {
          out.add(s + "-" + i);
        }
      }
    }
    return out;
  }

  private Condition held() {
    return held("gpu");
  }

  private Condition held(String nodeSet) {
    NodeSetStatusView st = cluster.status(NS + "/" + nodeSet);
    return st == null ? null : st.condition(Condition.AUTOMATIC_DRAINS_HELD);
  }

  private NodeSetWorkflow threeReadyNodes() {
    NodeSetWorkflow wf = startNodeSet("gpu", spec(1, 3, "a"));
    await("3 ready", 120, () -> allReady(wf, 3));
    assertEquals("WithinBudget", held().reason(), "nothing held before the fault");
    return wf;
  }

  @Test
  void threeOfThreeUnhealthyWithABudgetOfOneKeepTwoInServiceUntilTheFirstRecovers() {
    threeReadyNodes();
    RemediationBudget one = new RemediationBudget(1, null, 1);
    for (int i = 0; i < 3; i++) {
      unhealthy(i, one, null);
    }
    await("held shows", 60, () -> held() != null && held().statusTrue());
    env.sleep(Duration.ofMinutes(2));
    assertEquals(List.of("gpu-0"), drained(), "one node drained, two in service");
    assertEquals("MassFault", held().reason());
    assertEquals(
        "2 unhealthy nodes kept in service, the budget is spent (NodeSet default/gpu full: 1/1;"
            + " spec.remediation.budget): k1 (GpuUnhealthy=True: Xid 79), k2 (GpuUnhealthy=True:"
            + " Xid 79)",
        held().message());
    List<EventRequest> events = cluster.events();
    assertTrue(
        events.stream()
            .anyMatch(
                e ->
                    e.kind().equals("NodeSet")
                        && e.reason().equals("MassFault")
                        && e.type().equals("Warning")),
        events.toString());

    // A manual drain of a held node is never held: it goes to the node workflow, not the budget.
    client
        .newUntypedWorkflowStub(Names.nodeWorkflowId(NS, "gpu-2"))
        .signal(Names.SIGNAL_DRAIN, NodeCommand.of("manual", "operator takes it out"));
    await("manual drain set", 60, () -> drained().contains("gpu-2"));
    assertEquals("tandem:manual: operator takes it out", cluster.slurmNode("gpu-2").reason());

    // The first recovers: its drain is lifted and the next in line is drained.
    healthy(0);
    await("gpu-1 drained", 60, () -> drained().contains("gpu-1"));
    await("gpu-0 back", 60, () -> !drained().contains("gpu-0"));
    assertTrue(held().message().startsWith("1 unhealthy node kept in service"), held().message());
    assertEquals(List.of("gpu-1", "gpu-2"), drained());

    // Raising the budget lets the held node go too (the watcher asks again with the new limit).
    unhealthy(2, new RemediationBudget(2, null, 2), null);
    await("held clears", 60, () -> held().status().equals(Condition.FALSE));
    assertEquals(
        "tandem:k8s-unhealthy: GpuUnhealthy=True: Xid 79", cluster.slurmNode("gpu-2").reason());
    healthy(1);
    healthy(2);
    await("all back but the manual drain", 60, () -> drained().equals(List.of("gpu-2")));
    try {
      await(
          "the manual drain's reason shows again",
          120,
          () -> "tandem:manual: operator takes it out".equals(cluster.slurmNode("gpu-2").reason()));
    } catch (AssertionError e) {
      throw new AssertionError(nodeStatus("gpu-2").timeline() + "\n" + budget(), e);
    }
    assertTrue(
        cluster.events().stream().anyMatch(e -> e.reason().equals("DrainsResumed")),
        cluster.events().toString());
  }

  @Test
  void aTopologyBlockLosesOneNodeWhileAnotherBlockLosesItsOwn() {
    threeReadyNodes();
    RemediationBudget racks = new RemediationBudget(3, "rack", 1);
    Map<Integer, String> rack = Map.of(0, "rack=A", 1, "rack=A", 2, "rack=B");
    for (int i = 0; i < 3; i++) {
      unhealthy(i, racks, rack.get(i));
    }
    await("held shows", 60, () -> held() != null && held().statusTrue());
    env.sleep(Duration.ofMinutes(2));
    assertEquals(List.of("gpu-0", "gpu-2"), drained(), "one per rack");
    assertEquals(
        "1 unhealthy node kept in service, the budget is spent (domain rack=A full: 1/1;"
            + " spec.remediation.budget): k1 (GpuUnhealthy=True: Xid 79)",
        held().message());
    healthy(0);
    await("gpu-1 drained", 60, () -> drained().equals(List.of("gpu-1", "gpu-2")));
    await("held clears", 60, () -> !held().statusTrue());
    List<String> holders = new ArrayList<>();
    for (BudgetStatus.Entry e : budget().holders()) {
      holders.add(e.request().key());
    }
    assertEquals(List.of("k8s-unhealthy:k2", "k8s-unhealthy:k1"), holders);
  }

  @Test
  void aNodeSetOfOneNodeKeepsItByDefaultAndLosesItWithAnExplicitBudget() {
    NodeSetWorkflow wf = startNodeSet("solo", spec(1, 1, "a"));
    await("1 ready", 120, () -> allReady(wf, 1));
    BudgetShape one = shape(Map.of("solo", 1), 100);
    unhealthy("solo", "solo-k0", 0, RemediationBudget.defaults(), one, null);
    await("held shows", 60, () -> held("solo") != null && held("solo").statusTrue());
    env.sleep(Duration.ofMinutes(2));
    assertEquals(List.of(), drained("solo"), "the last node stays in service");
    assertEquals(
        "1 unhealthy node kept in service, the budget is spent (NodeSet default/solo full: 0/0"
            + " (its last node stays in service); spec.remediation.budget): solo-k0"
            + " (GpuUnhealthy=True: Xid 79)",
        held("solo").message());

    // The operator writes maxPerNodeSet: 1 (the watcher asks again with it): the node is drained.
    unhealthy("solo", "solo-k0", 0, new RemediationBudget(1, null, 1), one, null);
    await("drained", 60, () -> drained("solo").equals(List.of("solo-0")));
    await("held clears", 60, () -> !held("solo").statusTrue());
  }

  @Test
  void theClusterLimitHoldsDrainsOfEveryNodeSetOnceItIsSpent() {
    NodeSetWorkflow a = startNodeSet("a", spec(1, 3, "a"));
    NodeSetWorkflow b = startNodeSet("b", spec(1, 3, "a"));
    await("6 ready", 120, () -> allReady(a, 3) && allReady(b, 3));
    BudgetShape s = shape(Map.of("a", 3, "b", 3), 1);
    for (int i = 0; i < 3; i++) {
      unhealthy("a", "a-k" + i, i, RemediationBudget.defaults(), s, null);
    }
    for (int i = 0; i < 3; i++) {
      unhealthy("b", "b-k" + i, i, RemediationBudget.defaults(), s, null);
    }
    await("b held", 60, () -> held("b") != null && held("b").statusTrue());
    await("a held", 60, () -> held("a") != null && held("a").statusTrue());
    env.sleep(Duration.ofMinutes(2));
    assertEquals(List.of("a-0"), drained("a", "b"), "one node out cluster-wide");
    String heldA = held("a").message(); // conditions cut long messages
    assertTrue(
        heldA.startsWith(
            "2 unhealthy nodes kept in service, the budget is spent (NodeSet default/a full: 1/1,"
                + " cluster full: 1/1; spec.remediation.budget, TANDEM_CLUSTER_BUDGET): a-k1"),
        heldA);
    String heldB = held("b").message();
    assertTrue(
        heldB.startsWith(
            "3 unhealthy nodes kept in service, the budget is spent (cluster full: 1/1;"
                + " TANDEM_CLUSTER_BUDGET): b-k0 (GpuUnhealthy=True: Xid 79), b-k1"),
        heldB);
    assertEquals("cluster full: 1/1", budget().waiting().get(2).note(), budget().toString());

    // a-k0 recovers: the first in line (a-k1, by its NodeSet's default of one) goes next.
    ask(Names.SIGNAL_RELEASE, new SlotRelease("a-k0", "healthy again", SlotRequest.DRAIN));
    await("a-1 drained", 60, () -> drained("a", "b").equals(List.of("a-1")));
  }

  private BudgetStatus budget() {
    return client
        .newWorkflowStub(RemediationBudgetWorkflow.class, Names.REMEDIATION_BUDGET_ID)
        .status();
  }
}
