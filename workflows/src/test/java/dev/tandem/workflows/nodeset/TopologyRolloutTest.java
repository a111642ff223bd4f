package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.nodeset.NodeSetState.Entry;
import dev.tandem.workflows.nodeset.TopologyRollout.Plan;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The topology-aware rolling update, without Temporal. */
class TopologyRolloutTest {
  /** Kubernetes nodes k0, k1 in domain a; k2 in b; k3 unlabelled. */
  static final Map<String, String> LABELS = Map.of("k0", "a", "k1", "a", "k2", "b");

  static Entry node(int ordinal, String k8s, String rev, String slurm, boolean busy) {
    Entry e = new Entry();
    e.ordinal = ordinal;
    e.pod = "t-" + ordinal;
    e.startRevision = rev;
    e.started = true;
    e.report =
        new NodeReport(e.pod, ordinal, NodePhase.READY, rev, rev, slurm, busy, null, k8s, null, 1);
    return e;
  }

  static Entry idle(int ordinal, String k8s) {
    return node(ordinal, k8s, "a", "idle", false);
  }

  static Entry busy(int ordinal, String k8s) {
    return node(ordinal, k8s, "a", "allocated", true);
  }

  /** The node was told to update to b in {@code domain} and is on its way. */
  static Entry told(Entry e, String domain) {
    e.updateSentFor = "b";
    e.updateSentImmediate = true;
    e.rollDomain = domain;
    return e;
  }

  static Plan plan(List<Entry> active, String max, boolean idleFirst, String previous) {
    return TopologyRollout.plan(active, "b", max, idleFirst, LABELS, previous);
  }

  static List<Integer> ordinals(Plan p) {
    return p.updates().stream().map(e -> e.ordinal).toList();
  }

  /** Two domains of three: a = 0,1,2 (k0, k1), b = 3,4,5 (k2). */
  static List<Entry> twoDomains() {
    return List.of(
        idle(0, "k0"), idle(1, "k1"), idle(2, "k0"), idle(3, "k2"), idle(4, "k2"), idle(5, "k2"));
  }

  @Test
  void takesMaxUnavailableOfOneDomainOnlyHighestOrdinalFirst() {
    Plan p = plan(twoDomains(), "2", false, null);
    assertEquals("a", p.domain());
    assertEquals(List.of(2, 1), ordinals(p));
    assertEquals(Map.of("t-2", "a", "t-1", "a"), p.domains());
  }

  @Test
  void finishesTheDomainBeforeTheNext() {
    List<Entry> nodes = twoDomains();
    told(nodes.get(2), "a");
    // Node 1 is back at b and serving; 2 still on its way: one slot left in a, none taken in b.
    Entry back = node(1, "k1", "b", "idle", false);
    told(back, "a");
    List<Entry> active = List.of(nodes.get(0), back, nodes.get(2), nodes.get(3), nodes.get(4));
    Plan p = plan(active, "2", false, "a");
    assertEquals("a", p.domain());
    assertEquals(List.of(0), ordinals(p));
  }

  @Test
  void theNextDomainWaitsUntilTheLastNodeOfThePreviousServesAgain() {
    // Domain a is all at b, but node 2 is still registering: b's nodes are not taken yet.
    Entry registering = node(2, "k0", "b", "idle", false);
    registering.report =
        new NodeReport(
            "t-2", 2, NodePhase.REGISTERING, "b", "b", "idle", false, null, "k0", null, 2);
    told(registering, "a");
    List<Entry> active =
        List.of(
            told(node(0, "k0", "b", "idle", false), "a"),
            registering,
            idle(3, "k2"),
            idle(4, "k2"));
    Plan p = plan(active, "2", false, "a");
    assertEquals("b", p.domain());
    assertEquals(List.of(), ordinals(p));
    // Once it serves, b goes.
    Entry ready = told(node(2, "k0", "b", "idle", false), "a");
    p = plan(List.of(active.get(0), ready, active.get(2), active.get(3)), "2", false, "b");
    assertEquals(List.of(4, 3), ordinals(p));
  }

  @Test
  void aReplacementThatMovedStillCountsInItsOldDomain() {
    // Node 2 was taken in a; its new pod landed on k2 (domain b) and is not serving yet.
    Entry moved = node(2, "k2", "a", "idle+NOT_RESPONDING", false);
    told(moved, "a");
    List<Entry> active = List.of(idle(0, "k0"), moved, idle(3, "k2"), idle(4, "k2"));
    Plan p = plan(active, "1", false, "a");
    assertEquals("a", p.domain());
    assertEquals(List.of(), ordinals(p), "a's budget of 1 is spent by the moved node");
  }

  @Test
  void idleFirstRollsDomainsWithoutJobsFirstThenByName() {
    List<Entry> active =
        List.of(idle(0, "k0"), busy(1, "k1"), idle(3, "k2"), idle(4, "k2"), idle(6, "k3"));
    assertEquals("b", plan(active, "1", true, null).domain());
    assertEquals(List.of(4), ordinals(plan(active, "1", true, null)));
    assertEquals("a", plan(active, "1", false, null).domain(), "name order");
    // Within a domain, idle nodes first.
    assertEquals(List.of(0), ordinals(plan(active, "1", false, null)));
  }

  @Test
  void unlabelledAndUnscheduledNodesAreTheirOwnDomainLast() {
    Entry unscheduled = idle(7, null);
    List<Entry> active = List.of(idle(6, "k3"), unscheduled, idle(3, "k2"));
    Plan p = plan(active, "5", true, null);
    assertEquals("b", p.domain());
    assertEquals(List.of(3), ordinals(p));
    // Even an idle "" loses to a busy named domain.
    active = List.of(idle(6, "k3"), busy(3, "k2"));
    assertEquals("b", plan(active, "1", true, null).domain());
    p = plan(List.of(idle(6, "k3"), idle(7, null)), "5", true, null);
    assertEquals("", p.domain());
    assertEquals(List.of(7, 6), ordinals(p));
    assertEquals("", TopologyRollout.observed(unscheduled, LABELS));
  }

  @Test
  void percentagesCountTheDomainsNodes() {
    // a has 4 nodes, b has 2; 50% is 2 in a and 1 in b.
    List<Entry> active =
        List.of(
            idle(0, "k0"),
            idle(1, "k1"),
            idle(2, "k0"),
            idle(5, "k1"),
            idle(3, "k2"),
            idle(4, "k2"));
    assertEquals(List.of(5, 2), ordinals(plan(active, "50%", false, null)));
    List<Entry> onlyB = List.of(idle(3, "k2"), idle(4, "k2"));
    assertEquals(List.of(4), ordinals(plan(onlyB, "50%", false, null)));
    // At least 1, however small the domain.
    assertEquals(List.of(4), ordinals(plan(onlyB, "10%", false, null)));
  }

  @Test
  void aNodeOutInAnotherDomainBlocksTakingAvailableNodesButIsUpdatedFree() {
    Entry down = node(4, "k2", "a", "down+NOT_RESPONDING", false);
    List<Entry> active = List.of(idle(0, "k0"), idle(1, "k1"), idle(3, "k2"), down);
    Plan p = plan(active, "2", false, null);
    assertEquals("a", p.domain());
    assertEquals(List.of(4), ordinals(p), "only the node that is out already");
    assertEquals(Map.of("t-4", "b"), p.domains());
  }

  @Test
  void anAdministratorsDrainInAnotherDomainHoldsTheRollout() {
    Entry drained = node(4, "k2", "b", "idle+DRAIN", false);
    List<Entry> active = List.of(idle(0, "k0"), idle(1, "k1"), drained);
    assertEquals(List.of(), ordinals(plan(active, "2", false, null)));
  }

  @Test
  void aNodeRevertedToAnotherRevisionGetsTheUpdateFree() {
    Entry reverting = node(0, "k0", "b", "idle", false);
    reverting.report =
        new NodeReport("t-0", 0, NodePhase.UPDATING, "b", "a", "idle", false, null, "k0", null, 2);
    List<Entry> active = List.of(reverting, idle(3, "k2"));
    assertTrue(TopologyRollout.pending(active, "b"));
    Plan p = plan(active, "1", false, null);
    assertTrue(ordinals(p).contains(0));
  }

  @Test
  void doneWhenEveryNodeIsAtTheRevision() {
    List<Entry> active =
        List.of(node(0, "k0", "b", "idle", false), node(3, "k2", "b", "idle", false));
    assertFalse(TopologyRollout.pending(active, "b"));
    Plan p = plan(active, "1", true, "b");
    assertNull(p.domain());
    assertEquals(List.of(), ordinals(p));
    assertEquals(List.of("k0", "k2"), TopologyRollout.k8sNodes(active));
  }
}
