package dev.tandem.workflows.node;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.model.UpdateCommand;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.worker.WorkerFactory;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node reports to its NodeSet where a pass ends, not after every phase it passes through within
 * the pass. An idle node told to update drains, finds no job and starts replacing its pod in one
 * pass: the NodeSet hears "updating", not "draining" and "drained" first, which it could not act on
 * (it counts a node it told to update as out of service until the node reports back at the new
 * revision). The code before sent all three.
 */
class PassReportsTest extends WorkflowTestBase {
  private WorkerFactory recorders;

  @AfterEach
  void stopRecorders() {
    if (recorders != null) {
      recorders.shutdownNow();
    }
    ReportResendTest.REPORTS.clear();
  }

  @Test
  void anIdleNodesUpdateIsReportedWhereItsPassesEnd() {
    recorders = ReportResendTest.startRecorders(client);
    ReportResendTest.startRecorder(client, "pass");
    List<NodeReport> reports = ReportResendTest.REPORTS;

    startNode("pass", 0, "a");
    await(
        "ready, and heard",
        60,
        () ->
            phaseIs("pass-0", NodePhase.READY)
                && reports.stream().anyMatch(x -> x.phase() == NodePhase.READY));
    reports.clear();

    node("pass-0").update(new UpdateCommand(template("b"), true, null));
    await(
        "back in service at revision b, and heard",
        120,
        () ->
            reports.stream()
                .anyMatch(x -> x.phase() == NodePhase.READY && "b".equals(x.revision())));

    List<NodePhase> heard = reports.stream().map(NodeReport::phase).toList();
    assertTrue(heard.contains(NodePhase.UPDATING), "the first pass ends updating: " + heard);
    assertFalse(
        heard.contains(NodePhase.DRAINING) || heard.contains(NodePhase.DRAINED),
        "draining and drained were passed through within that pass: " + heard);
  }
}
