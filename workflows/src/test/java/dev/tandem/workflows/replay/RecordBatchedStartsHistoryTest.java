package dev.tandem.workflows.replay;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import dev.tandem.workflows.testing.WorkflowTestBase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
  private static final String TAG = System.getProperty("tandem.recordHistories", "");
  private static final Path DIR = Path.of("src/test/resources/histories");

  @Test
  void recordBatchedStarts() throws IOException {
    assumeTrue(!TAG.isEmpty(), "set -Dtandem.recordHistories=<tag> to record");
    NodeSetWorkflow wf = startNodeSet("batch", spec(1, 210, "a"));
    await("210 ready", 600, () -> allReady(wf, 210));
    String json = client.fetchHistory(Names.nodeSetWorkflowId(NS, "batch")).toJson(false);
    Files.createDirectories(DIR);
    Files.writeString(DIR.resolve("nodeset-batched-starts-" + TAG + ".json"), json);
  }
}
