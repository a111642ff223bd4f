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
}
