package dev.tandem.workflows.replay;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.model.UpdateStrategy;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import dev.tandem.workflows.testing.Histories;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Records the NodeSet workflow's baseline histories that {@link ReplayTest} replays (and, for a
 * rejected pod, the node's). Runs only on request ({@link Histories}).
 */
class RecordNodeSetHistoriesTest extends WorkflowTestBase {
  /** Continue-as-new after 200 events (the minimum), so a short scenario spans several runs. */
  private static final Tuning SHORT_HISTORY = new Tuning(1, 10, 200, 200, 120, true);

  private static final String KEY = "topology.tandem.dev/block";

  /** Scale up to 3, roll all 3 to b two at a time, scale down to 1, delete. */
  @Test
  void recordNodeSet() {
    Histories.assumeRecording();
    NodeSetWorkflow wf = startNodeSet("main", spec(1, 3, "a"));
    await("3 ready", 120, () -> allReady(wf, 3));
    wf.specChanged(spec(2, 3, "b", 2));
    awaitRolled(wf, "b", 3);
    wf.specChanged(spec(3, 1, "b"));
    await("scaled down", 300, () -> wf.status().nodes().size() == 1);
    finish(wf, "nodeset", "main");
  }

  /** Continue-as-new while settled; a scale-up with a rolling update and the deletion follow. */
  @Test
  void recordNodeSetContinueAsNew() {
    Histories.assumeRecording();
    NodeSetWorkflow wf = startNodeSet("canset", spec(1, 2, "a"), SHORT_HISTORY);
    String id = Names.nodeSetWorkflowId(NS, "canset");
    String first = WorkflowStub.fromTyped(wf).getExecution().getRunId();
    await("2 ready", 120, () -> allReady(wf, 2));
    await("continued", 1200, () -> Histories.runs(client, id, first).size() >= 2);
    wf.specChanged(spec(2, 3, "b"));
    awaitRolled(wf, "b", 3);
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    WorkflowStub.fromTyped(wf).getResult(Void.class);
    Histories.recordRuns(client, "nodeset-continued", id, first);
  }

  /**
   * Three nodes in blocks a (k8s-0, k8s-1) and b (k8s-2), rolled by block, idle block first: a job
   * on block a; the node labels cannot be read for a minute in the middle (nothing is taken
   * meanwhile); the busy node waits for its job; then the NodeSet is deleted.
   */
  @Test
  void recordTopologyRollout() {
    Histories.assumeRecording();
    cluster.labelNode("k8s-0", KEY, "a");
    cluster.labelNode("k8s-1", KEY, "a");
    cluster.labelNode("k8s-2", KEY, "b");
    NodeSetWorkflow wf = startNodeSet("topo", byTopology(1, "a"));
    await("3 ready", 120, () -> allReady(wf, 3));
    long job = cluster.startJob("topo-1");
    env.sleep(Duration.ofSeconds(25)); // the job reaches the NodeSet in the node's report
    wf.specChanged(byTopology(2, "b"));
    await("block b at b", 300, () -> atRevision(List.of("topo-2"), "b"));
    cluster.kubeDown(true);
    env.sleep(Duration.ofMinutes(1));
    cluster.kubeDown(false);
    await("block a's idle node at b", 600, () -> atRevision(List.of("topo-0"), "b"));
    cluster.endJob(job);
    await("all at b", 600, () -> atRevision(List.of("topo-1"), "b"));
    finish(wf, "nodeset-topology", "topo");
  }

  /**
   * A revision whose pod the cluster refuses: the rollout of b stops and the node whose old pod was
   * deleted returns to a; then c rolls out and the NodeSet is deleted.
   */
  @Test
  void recordPodRejected() {
    Histories.assumeRecording();
    cluster.rejectRevision("b", "unknown field \"spec.containers[0].resizePolicy\"");
    NodeSetWorkflow wf = startNodeSet("rejset", spec(1, 2, "a"));
    await("2 ready", 120, () -> allReady(wf, 2));
    wf.specChanged(spec(2, 2, "b"));
    env.sleep(Duration.ofSeconds(20));
    wf.specChanged(spec(3, 2, "c"));
    awaitRolled(wf, "c", 2);
    finish(wf, "nodeset-pod-rejected", "rejset");
    Histories.record(client, "node-pod-rejected", Names.nodeWorkflowId(NS, "rejset-1"), null);
  }

  private static NodeSetSpecView byTopology(long generation, String rev) {
    return new NodeSetSpecView(
        generation,
        "uid-ns",
        3,
        template(rev),
        UpdateStrategy.rolling("2").byTopology(KEY, null),
        DrainPolicy.waitForever(),
        DrainPolicy.waitForever(),
        List.of());
  }

  private boolean atRevision(List<String> pods, String rev) {
    return pods.stream()
        .allMatch(p -> rev.equals(nodeStatus(p).revision()) && phaseIs(p, NodePhase.READY));
  }

  private void finish(NodeSetWorkflow wf, String name, String nodeSet) {
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    WorkflowStub.fromTyped(wf).getResult(Void.class);
    Histories.record(client, name, Names.nodeSetWorkflowId(NS, nodeSet), null);
  }
}
