package dev.tandem.workflows.remediation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.workflows.remediation.BudgetStatus.Entry;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class BudgetLineTest {
  private static final Instant T = Instant.parse("2026-11-24T10:00:00Z");

  private static SlotRequest req(String node, String nodeSet, int max, String domain, int maxDom) {
    return new SlotRequest(
        node, nodeSet == null ? List.of() : List.of(nodeSet), max, domain, maxDom, "Condition: x");
  }

  private static void ask(BudgetLine b, SlotRequest r) {
    b.waiting.add(new Entry(r, T, "waiting"));
  }

  private static List<String> nodes(List<SlotRequest> rs) {
    return rs.stream().map(SlotRequest::k8sNode).toList();
  }

  @Test
  void grantsInLineOrderUpToTheNodeSetLimit() {
    BudgetLine b = new BudgetLine();
    ask(b, req("k1", "ns/a", 2, null, 1));
    ask(b, req("k2", "ns/a", 2, null, 1));
    ask(b, req("k3", "ns/a", 2, null, 1));
    assertEquals(List.of("k1", "k2"), nodes(b.grant(T)));
    assertEquals("NodeSet ns/a full: 2/2", b.waiting.get(0).note());
    assertEquals(List.of(), nodes(b.grant(T)));
    assertNotNull(b.release("k2", "Recovered", T));
    assertEquals(List.of("k3"), nodes(b.grant(T)));
    assertEquals("Recovered", b.recent.get(0).note());
  }

  @Test
  void aFullScopeDoesNotBlockALaterRequestOfOtherScopes() {
    BudgetLine b = new BudgetLine();
    ask(b, req("a1", "ns/a", 5, "rack=A", 1));
    ask(b, req("a2", "ns/a", 5, "rack=A", 1));
    ask(b, req("b1", "ns/a", 5, "rack=B", 1));
    ask(b, req("a3", "ns/a", 5, "rack=A", 1));
    assertEquals(List.of("a1", "b1"), nodes(b.grant(T)));
    // a2 keeps its place before a3 in rack A's line
    assertEquals(List.of("a2", "a3"), b.waiting.stream().map(e -> e.request().k8sNode()).toList());
    b.release("a1", "Failed", T);
    assertEquals(List.of("a2"), nodes(b.grant(T)));
  }

  @Test
  void everyNodeSetOfARequestMustHaveRoom() {
    BudgetLine b = new BudgetLine();
    ask(b, req("k1", "ns/a", 1, null, 1));
    ask(b, new SlotRequest("k2", List.of("ns/b", "ns/a"), 1, null, 1, "x"));
    ask(b, req("k3", "ns/b", 1, null, 1));
    assertEquals(List.of("k1", "k3"), nodes(b.grant(T)));
    assertEquals("NodeSet ns/a full: 1/1", b.waiting.get(0).note());
  }

  @Test
  void releaseOfAWaitingNodeLeavesTheLineAndAnUnknownNodeChangesNothing() {
    BudgetLine b = new BudgetLine();
    ask(b, req("k1", "ns/a", 1, null, 1));
    ask(b, req("k2", "ns/a", 1, null, 1));
    b.grant(T);
    assertNotNull(b.release("k2", "Dismissed", T));
    assertEquals(List.of(), b.waiting);
    assertNull(b.release("nope", "x", T));
    for (int i = 0; i < BudgetLine.RECENT_LIMIT + 5; i++) {
      ask(b, req("n" + i, null, 1, null, 1));
    }
    assertEquals(BudgetLine.RECENT_LIMIT + 5, b.grant(T).size(), "no scope: granted at once");
    for (int i = 0; i < BudgetLine.RECENT_LIMIT + 5; i++) {
      b.release("n" + i, "Recovered", T);
    }
    assertEquals(BudgetLine.RECENT_LIMIT, b.recent.size());
  }

  private static SlotRequest sized(String node, String nodeSet, int max, int nodes, int cluster) {
    return new SlotRequest(
        node,
        List.of(nodeSet),
        max,
        null,
        1,
        "Condition: x",
        null,
        null,
        java.util.Map.of(nodeSet, nodes),
        cluster);
  }

  @Test
  void byDefaultANodeSetKeepsItsLastNodeAndAnExplicitLimitIsTakenAsWritten() {
    BudgetLine b = new BudgetLine();
    ask(b, sized("solo", "ns/solo", 0, 1, 0));
    ask(b, sized("p1", "ns/pair", 0, 2, 0));
    ask(b, sized("p2", "ns/pair", 0, 2, 0));
    assertEquals(List.of("p1"), nodes(b.grant(T)), "one of two; none of one");
    assertEquals(
        "NodeSet ns/solo full: 0/0 (its last node stays in service)", b.waiting.get(0).note());
    assertEquals("spec.remediation.budget", BudgetLine.settingOf(b.waiting.get(0).note()));
    assertEquals("NodeSet ns/pair full: 1/1", b.waiting.get(1).note());
    b.waiting.clear();
    ask(b, sized("solo", "ns/solo", 1, 1, 0));
    assertEquals(List.of("solo"), nodes(b.grant(T)), "maxPerNodeSet: 1 written");
    assertEquals(0, RemediationBudget.nodeSetLimit(0, 0), "unknown size: nothing");
    assertEquals(4, RemediationBudget.nodeSetLimit(4, 1));
  }

  @Test
  void theClusterScopeCountsEveryHolder() {
    BudgetLine b = new BudgetLine();
    ask(b, req("x1", "ns/x", 5, null, 1)); // no cluster limit of its own, still counts
    ask(b, sized("a1", "ns/a", 0, 3, 2));
    ask(b, sized("b1", "ns/b", 0, 3, 2));
    ask(b, sized("a2", "ns/a", 0, 3, 2));
    assertEquals(List.of("x1", "a1"), nodes(b.grant(T)));
    assertEquals("cluster full: 2/2", b.waiting.get(0).note());
    assertEquals("TANDEM_CLUSTER_BUDGET", BudgetLine.settingOf(b.waiting.get(0).note()));
    assertEquals("NodeSet ns/a full: 1/1, cluster full: 2/2", b.waiting.get(1).note());
    assertEquals(
        "spec.remediation.budget, TANDEM_CLUSTER_BUDGET",
        BudgetLine.settingOf(b.waiting.get(1).note()));
    b.release("x1", "Recovered", T);
    assertEquals(List.of("b1"), nodes(b.grant(T)));
  }

  @Test
  void theDefaultClusterLimitIsATenthOfTheHostsAtLeastOne() {
    assertEquals(1, BudgetShape.clusterLimit(0, 3));
    assertEquals(2, BudgetShape.clusterLimit(0, 25));
    assertEquals(7, BudgetShape.clusterLimit(7, 25));
    BudgetShape s =
        BudgetShape.of(
            List.of(
                new BudgetShape.Placement("ns/a", "k1"),
                new BudgetShape.Placement("ns/a", "k1"),
                new BudgetShape.Placement("ns/a", "k2"),
                new BudgetShape.Placement("ns/b", "k2"),
                new BudgetShape.Placement("ns/b", null)),
            0);
    assertEquals(java.util.Map.of("ns/a", 2, "ns/b", 1), s.nodeSetNodes());
    assertEquals(1, s.maxInCluster());
  }
}
