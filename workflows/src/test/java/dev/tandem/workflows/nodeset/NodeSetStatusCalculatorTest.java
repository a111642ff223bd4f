package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.nodeset.NodeSetState.Entry;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class NodeSetStatusCalculatorTest {
  /** One problem many nodes share is said once, naming three nodes and counting the rest. */
  @Test
  void degradedSaysASharedProblemOnce() {
    NodeSetState s = new NodeSetState();
    for (int i = 0; i < 5; i++) {
      Entry e = new Entry();
      e.pod = "gpu-" + i;
      e.ordinal = i;
      e.started = true;
      e.report =
          new NodeReport(
              e.pod, i, NodePhase.READY, "a", "a", "idle", false, null, null, "stuck", 1);
      s.nodes.put(i, e);
    }
    Condition d =
        NodeSetStatusCalculator.compute(s, "tandem.dev/nodeset=gpu", Instant.EPOCH)
            .condition(Condition.DEGRADED);
    assertEquals(Condition.TRUE, d.status());
    assertEquals("NodeProblems", d.reason());
    assertEquals("gpu-0, gpu-1, gpu-2 and 2 more: stuck", d.message());
  }

  /** Distinct problems are each said, three of them, then how many more. */
  @Test
  void degradedNamesThreeDistinctProblemsThenCountsTheRest() {
    NodeSetState s = new NodeSetState();
    for (int i = 0; i < 5; i++) {
      Entry e = new Entry();
      e.pod = "gpu-" + i;
      e.ordinal = i;
      e.started = true;
      e.report =
          new NodeReport(
              e.pod, i, NodePhase.READY, "a", "a", "idle", false, null, null, "stuck " + i % 4, 1);
      s.nodes.put(i, e);
    }
    Condition d =
        NodeSetStatusCalculator.compute(s, "sel", Instant.EPOCH).condition(Condition.DEGRADED);
    assertEquals("gpu-0, gpu-4: stuck 0; gpu-1: stuck 1; gpu-2: stuck 2; and 1 more", d.message());
  }

  /**
   * A fresh report that Slurm cannot be reached degrades the NodeSet and comes first; a stale one
   * (Unknown) does not, and neither does one that says it answers.
   */
  @Test
  void slurmUnreachableDegradesAndNamesItBeforeTheNodesProblems() {
    NodeSetState s = new NodeSetState();
    Entry e = new Entry();
    e.pod = "gpu-0";
    e.started = true;
    e.report =
        new NodeReport(e.pod, 0, NodePhase.READY, "a", "a", "idle", false, null, null, "stuck", 1);
    s.nodes.put(0, e);
    Instant now = Instant.parse("2026-01-01T00:01:00Z");
    s.health.put(
        ClusterHealth.SLURM,
        new ClusterHealth(
            ClusterHealth.SLURM, false, "cannot reach slurmrestd: refused", now, now));
    s.healthHeardMillis.put(ClusterHealth.SLURM, now.toEpochMilli());
    Condition d = NodeSetStatusCalculator.compute(s, "sel", now).condition(Condition.DEGRADED);
    assertEquals(Condition.TRUE, d.status());
    assertEquals("SlurmUnreachable", d.reason());
    assertEquals(
        "Slurm unreachable, node states as last seen: cannot reach slurmrestd: refused;"
            + " gpu-0: stuck",
        d.message());

    Instant later = now.plus(NodeSetConditions.HEALTH_STALE_AFTER).plusSeconds(1);
    d = NodeSetStatusCalculator.compute(s, "sel", later).condition(Condition.DEGRADED);
    assertEquals("NodeProblems", d.reason(), "a stale report is Unknown, not an outage");

    e.report =
        new NodeReport(e.pod, 0, NodePhase.READY, "a", "a", "idle", false, null, null, null, 1);
    s.health.put(
        ClusterHealth.SLURM, new ClusterHealth(ClusterHealth.SLURM, true, "answers", now, now));
    d = NodeSetStatusCalculator.compute(s, "sel", now).condition(Condition.DEGRADED);
    assertEquals(Condition.FALSE, d.status());
    assertEquals("NoProblems", d.reason());
  }

  /**
   * A node's problem may hold a client's whole exception text (a ~1.3 KB fabric8 dump, several
   * lines): the Degraded message keeps one short line of it.
   */
  @Test
  void degradedKeepsOneLinePerProblem() {
    String dump =
        "cannot create pod: Failure executing: POST at:"
            + " https://10.0.0.1/api/v1/namespaces/default/pods?fieldValidation=Strict. Message:"
            + " Pod in version \"v1\" cannot be handled as a Pod: strict decoding error\n"
            + "Received status: Status(apiVersion=v1, code=400, "
            + "x".repeat(1300)
            + ")";
    NodeSetState s = new NodeSetState();
    Entry e = new Entry();
    e.pod = "gpu-0";
    e.started = true;
    e.report =
        new NodeReport(e.pod, 0, NodePhase.UPDATING, "a", "b", "idle", false, null, null, dump, 1);
    s.nodes.put(0, e);
    Condition d =
        NodeSetStatusCalculator.compute(s, "sel", Instant.EPOCH).condition(Condition.DEGRADED);
    assertEquals(Condition.TRUE, d.status());
    assertFalse(d.message().contains("\n"), d.message());
    assertTrue(d.message().length() <= "gpu-0: ".length() + NodeSetConditions.MAX_LINE);
    assertTrue(d.message().startsWith("gpu-0: cannot create pod: Failure executing: POST"));
  }
}
