package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.nodeset.NodeSetState.Entry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The planner's availability rules, without Temporal. */
class NodeSetPlannerTest {

  static Entry node(int ordinal, NodePhase phase, String rev, String slurm, String reason) {
    Entry e = new Entry();
    e.ordinal = ordinal;
    e.pod = "t-" + ordinal;
    e.startRevision = rev;
    e.started = true;
    e.report = new NodeReport(e.pod, ordinal, phase, rev, rev, slurm, false, reason, "k", null, 1);
    return e;
  }

  static Entry ready(int ordinal, String rev) {
    return node(ordinal, NodePhase.READY, rev, "idle", null);
  }

  static List<Integer> ordinals(List<Entry> es) {
    return es.stream().map(e -> e.ordinal).toList();
  }

  @Test
  void slurmServesOnlyKnownHealthyUndrainedStates() {
    for (String ok : List.of("idle", "mixed", "allocated", "allocated+COMPLETING", "idle+CLOUD")) {
      assertTrue(NodeAvailability.serves(ok), ok);
    }
    for (String no :
        List.of(
            "idle+DRAIN",
            "allocated+DRAIN",
            "down",
            "down+NOT_RESPONDING",
            "idle+NOT_RESPONDING",
            "future",
            "unknown",
            "error",
            "idle+FAIL",
            "idle+POWERED_DOWN",
            "",
            "drained")) {
      assertFalse(NodeAvailability.serves(no), no);
    }
    assertFalse(NodeAvailability.serves(null));
  }

  @Test
  void whyNotNamesTheCause() {
    assertEquals(
        "drained by an administrator: disk",
        NodeAvailability.whyNot(node(1, NodePhase.READY, "a", "idle+DRAIN", "disk")));
    assertEquals(
        "down: Not responding",
        NodeAvailability.whyNot(
            node(2, NodePhase.READY, "a", "down+NOT_RESPONDING", "Not responding")));
    assertEquals(
        "not responding",
        NodeAvailability.whyNot(node(0, NodePhase.READY, "a", "idle+NOT_RESPONDING", null)));
    assertEquals(
        "draining (tandem:update: revision a -> b)",
        NodeAvailability.whyNot(
            node(0, NodePhase.DRAINING, "a", "idle+DRAIN", "tandem:update: revision a -> b")));
    assertEquals(
        "unknown to Slurm",
        NodeAvailability.whyNot(node(0, NodePhase.READY, "a", "unknown", null)));
  }

  @Test
  void anAdminDrainedNodeSpendsTheBudgetAndIsUpdatedFree() {
    List<Entry> active =
        List.of(ready(0, "a"), node(1, NodePhase.READY, "a", "idle+DRAIN", "disk"), ready(2, "a"));
    assertEquals(List.of(1), ordinals(NodeSetPlanner.rollingUpdates(active, "b", 1)));
  }

  @Test
  void anUnavailableCandidateIsUpdatedEvenWhenTheBudgetIsSpent() {
    Entry updating = ready(2, "a");
    updating.updateSentFor = "b";
    updating.updateSentImmediate = true;
    Entry down = node(0, NodePhase.READY, "a", "down+NOT_RESPONDING", "Not responding");
    List<Entry> active = List.of(down, ready(1, "a"), updating);
    assertEquals(List.of(0), ordinals(NodeSetPlanner.rollingUpdates(active, "b", 1)));
  }

  @Test
  void availableCandidatesAreTakenIdleFirstUpToTheBudget() {
    Entry busy = ready(3, "a");
    busy.report =
        new NodeReport("t-3", 3, NodePhase.READY, "a", "a", "allocated", true, null, "k", null, 1);
    List<Entry> active = List.of(ready(0, "a"), ready(1, "a"), ready(2, "b"), busy);
    assertEquals(List.of(1, 0), ordinals(NodeSetPlanner.rollingUpdates(active, "b", 2)));
  }

  @Test
  void scaleDownTakesUnavailableNodesFirst() {
    List<Entry> active =
        List.of(ready(0, "a"), node(1, NodePhase.READY, "a", "idle+DRAIN", "disk"), ready(2, "a"));
    assertEquals(List.of(1), ordinals(NodeSetPlanner.victims(active, 2, java.util.Map.of())));
  }
}
