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

  /**
   * Garbage signal payloads of every kind, recorded with the code from before signal payloads were
   * read leniently (when the SDK dropped what it could not deserialize): replaying it proves that
   * the rejections recorded since change no command. Run alone: {@code
   * -Dtest=RecordHistoriesTest#recordGarbageSignals -Dtandem.recordHistories=v1}.
   */
  @Test
  void recordGarbageSignals() throws IOException {
    assumeTrue(!TAG.isEmpty(), "set -Dtandem.recordHistories=<tag> to record");
    NodeSetWorkflow set = startNodeSet("junkset", spec(1, 1, "a"));
    await("1 ready", 120, () -> allReady(set, 1));
    WorkflowStub node = client.newUntypedWorkflowStub(Names.nodeWorkflowId(NS, "junkset-0"));
    node.signal("update", "garbage");
    node.signal(
        "update",
        java.util.Map.of("target", java.util.Map.of("revision", "b"), "immediate", "soon"));
    node.signal("podObserved", 42);
    node.signal("podObserved", java.util.Map.of("name", "junkset-0", "createdAt", "yesterday"));
    node.signal("slurmObserved", java.util.List.of(1, 2));
    node.signal("slurmObserved", java.util.Map.of("name", "other-0", "known", true));
    node.signal(
        "drain", java.util.Map.of("owner", "manual", "reason", "x".repeat(300) + "\n\"end\""));
    await("drained", 60, () -> phaseIs("junkset-0", NodePhase.DRAINED));
    WorkflowStub raw = client.newUntypedWorkflowStub(Names.nodeSetWorkflowId(NS, "junkset"));
    raw.signal("specChanged", "garbage");
    raw.signal("specChanged", java.util.Map.of("generation", 9, "replicas", "many"));
    raw.signal("nodeReported", true);
    raw.signal(
        "nodeReported", java.util.Map.of("pod", "junkset-0", "phase", "EXPLODED", "seq", 99));
    raw.signal("clusterHealth", "down");
    raw.signal("delete", java.util.Map.of());
    env.sleep(Duration.ofSeconds(30));
    set.specChanged(spec(2, 2, "a"));
    await("2 nodes", 120, () -> set.status().nodes().size() == 2);
    node.signal("undrain", java.util.Map.of("owner", "manual"));
    await("ready", 60, () -> phaseIs("junkset-0", NodePhase.READY));
    set.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    WorkflowStub.fromTyped(set).getResult(Void.class);
    write("nodeset-garbage-signals", Names.nodeSetWorkflowId(NS, "junkset"));
    write("node-garbage-signals", Names.nodeWorkflowId(NS, "junkset-0"));
  }

  private void write(String name, String workflowId) throws IOException {
    String json = client.fetchHistory(workflowId).toJson(false);
    Files.createDirectories(DIR);
    Files.writeString(DIR.resolve(name + "-" + TAG + ".json"), json);
  }
}
