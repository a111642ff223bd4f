package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.nodeset.NodeSetState.Entry;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class NodeSetStatusCalculatorTest {
  /** Under every rule set: recorded workflows must keep showing the message they showed. */
  @Test
  void degradedNamesThreeProblemsThenCountsTheRest() {
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
    for (Rules rules : Rules.values()) {
      Condition d =
          NodeSetStatusCalculator.compute(s, "tandem.dev/nodeset=gpu", Instant.EPOCH, rules)
              .condition(Condition.DEGRADED);
      assertEquals(Condition.TRUE, d.status(), rules.name());
      assertEquals("NodeProblems", d.reason(), rules.name());
      assertEquals(
          "gpu-0: stuck; gpu-1: stuck; gpu-2: stuck; and 2 more", d.message(), rules.name());
    }
  }
}
