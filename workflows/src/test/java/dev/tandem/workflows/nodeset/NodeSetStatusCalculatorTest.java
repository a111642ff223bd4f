package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
