package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.testing.WorkflowTestBase;
import org.junit.jupiter.api.Test;

/**
 * A busy NodeSet (not every node ready at the update revision) continues as new only at twice the
 * bound, a settled one at the bound.
 */
class ContinueAsNewTimingTest extends WorkflowTestBase {
  private static final Tuning SHORT_HISTORY = new Tuning(1, 10, 200, 200, 120, true);

  @Test
  void theRule() {
    assertFalse(ContinueAsNewTiming.due(199, 200, false, false), "below the bound");
    assertTrue(ContinueAsNewTiming.due(199, 200, true, false), "the server suggests it");
    assertTrue(ContinueAsNewTiming.due(200, 200, false, false), "settled: at the bound");
    assertFalse(ContinueAsNewTiming.due(200, 200, false, true), "busy: not yet");
    assertFalse(ContinueAsNewTiming.due(399, 200, true, true), "busy, suggested: not yet");
    assertTrue(ContinueAsNewTiming.due(400, 200, false, true), "busy: at twice the bound");
    assertFalse(ContinueAsNewTiming.due(9_999, 6_000, false, true), "busy: 2 x 6,000 capped");
    assertTrue(ContinueAsNewTiming.due(10_000, 6_000, false, true), "at 10,000");
    assertTrue(ContinueAsNewTiming.due(20_000, 20_000, false, true), "a bound above it");
  }

  private long historyLength(String id) {
    return client
        .newUntypedWorkflowStub(id)
        .describe()
        .getRawDescription()
        .getWorkflowExecutionInfo()
        .getHistoryLength();
  }

  private String runId(String id) {
    return client.newUntypedWorkflowStub(id).describe().getExecution().getRunId();
  }

  @Test
  void aNodeSetWhoseNodeCannotRegisterGrowsToTwiceTheBoundThenContinues() {
    cluster.slurmDown(true); // the node never registers: the NodeSet stays busy
    startNodeSet("busy", spec(1, 1, "a"), SHORT_HISTORY);
    String id = Names.nodeSetWorkflowId(NS, "busy");
    String first = runId(id);
    long longest = 0;
    for (int i = 0; i < 300 && runId(id).equals(first); i++) { // 300 virtual 10-second steps
      longest = Math.max(longest, historyLength(id));
      env.sleep(java.time.Duration.ofSeconds(10));
    }
    assertNotEquals(first, runId(id), "continued as new in the end");
    assertTrue(longest >= 2 * 200 - 10, "not before twice the bound while busy: " + longest);
  }
}
