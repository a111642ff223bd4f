package dev.tandem.workflows.replay;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.TimeoutAction;
import dev.tandem.workflows.model.UpdateCommand;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.client.WorkflowStub;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Records the histories that {@link ReplayTest} replays. Runs only on request, when a change to the
 * workflows is meant to be compatible and new histories should join the old ones:
 *
 * <pre>./mvnw -pl workflows test -Dtest=RecordHistoriesTest -Dtandem.recordHistories=v2</pre>
 *
 * The value names the file suffix. Never delete old histories: they stand for workflows that may
 * still be running somewhere.
 */
class RecordHistoriesTest extends WorkflowTestBase {
  private static final String TAG = System.getProperty("tandem.recordHistories", "");
  private static final Path DIR = Path.of("src/test/resources/histories");

  @Test
  void recordNodeLifecycle() throws IOException {
    assumeTrue(!TAG.isEmpty(), "set -Dtandem.recordHistories=<tag> to record");
    NodeLifecycleWorkflow wf = startNode("rec", 0, "a");
    await("ready", 60, () -> phaseIs("rec-0", NodePhase.READY));
    cluster.adminDrain("rec-0", "disk");
    wf.drain(NodeCommand.of("manual", "check"));
    await("drained", 60, () -> phaseIs("rec-0", NodePhase.DRAINED));
    wf.undrain(NodeCommand.of("manual", "ok"));
    client.newUntypedWorkflowStub(Names.nodeWorkflowId(NS, "rec-0")).signal("drain", "garbage");
    await("ready", 60, () -> phaseIs("rec-0", NodePhase.READY));
    long job = cluster.startJob("rec-0");
    wf.update(new UpdateCommand(template("b"), true, new DrainPolicy(0, TimeoutAction.WAIT)));
    env.sleep(Duration.ofSeconds(30));
    cluster.endJob(job);
    await("updated", 120, () -> "b".equals(nodeStatus("rec-0").revision()));
    cluster.deletePodBehindBack("rec-0");
    await("recreated", 120, () -> cluster.podCreations("rec-0") == 3);
    await("ready", 60, () -> phaseIs("rec-0", NodePhase.READY));
    cluster.startJob("rec-0");
    wf.delete(
        NodeCommand.of("scale-down", "shrink")
            .withPolicy(new DrainPolicy(60, TimeoutAction.FORCE)));
    WorkflowStub.fromTyped(wf).getResult(NodePhase.class);
    write("node-lifecycle", Names.nodeWorkflowId(NS, "rec-0"));
  }

  @Test
  void recordNodeSet() throws IOException {
    assumeTrue(!TAG.isEmpty(), "set -Dtandem.recordHistories=<tag> to record");
    NodeSetWorkflow wf = startNodeSet("recset", spec(1, 3, "a"));
    await("3 ready", 120, () -> allReady(wf, 3));
    wf.specChanged(spec(2, 3, "b"));
    await(
        "rolled",
        300,
        () ->
            wf.status().nodes().stream().allMatch(n -> "b".equals(n.revision()))
                && allReady(wf, 3));
    wf.specChanged(spec(3, 1, "b"));
    await("scaled down", 300, () -> wf.status().nodes().size() == 1);
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    WorkflowStub.fromTyped(wf).getResult(Void.class);
    write("nodeset", Names.nodeSetWorkflowId(NS, "recset"));
    write("nodeset-child", Names.nodeWorkflowId(NS, "recset-0"));
  }

  private void write(String name, String workflowId) throws IOException {
    String json = client.fetchHistory(workflowId).toJson(false);
    Files.createDirectories(DIR);
    Files.writeString(DIR.resolve(name + "-" + TAG + ".json"), json);
  }
}
