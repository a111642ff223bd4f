package dev.tandem.workflows.replay;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import dev.tandem.workflows.testing.Histories;
import dev.tandem.workflows.testing.WorkflowTestBase;
import org.junit.jupiter.api.Test;

/**
 * Records the history of a NodeSet that starts more node workflows than one batch ({@code
 * Versions.BATCHED_STARTS}), replayed by {@link ReplayTest}; runs only on request:
 *
 * <pre>./mvnw -pl workflows test -Dtest=RecordBatchedStartsHistoryTest -Dtandem.recordHistories=v1
 * </pre>
 *
 * The history ends with the NodeSet running (all nodes ready): a replay of an open history checks
 * every command it holds.
 */
class RecordBatchedStartsHistoryTest extends WorkflowTestBase {

  @Test
  void recordBatchedStarts() {
    Histories.assumeRecording();
    NodeSetWorkflow wf = startNodeSet("batch", spec(1, 210, "a"));
    await("210 ready", 600, () -> allReady(wf, 210));
    Histories.record(client, "nodeset-batched-starts", Names.nodeSetWorkflowId(NS, "batch"), null);
  }
}
