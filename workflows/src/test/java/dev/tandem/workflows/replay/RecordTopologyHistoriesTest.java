package dev.tandem.workflows.replay;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.UpdateStrategy;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import dev.tandem.workflows.testing.Histories;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Records the NodeSet history of a rolling update by topology domain ({@code
 * Versions.TOPOLOGY_ROLLOUT}) that {@link ReplayTest} replays; runs only on request, like {@link
 * RecordHistoriesTest}:
 *
 * <pre>./mvnw -pl workflows test -Dtest=RecordTopologyHistoriesTest -Dtandem.recordHistories=v1
 * </pre>
 */
class RecordTopologyHistoriesTest extends WorkflowTestBase {
  private static final String KEY = "topology.tandem.dev/block";

  private static NodeSetSpecView spec(long generation, int replicas, String rev, String order) {
    return new NodeSetSpecView(
        generation,
        "uid-ns",
        replicas,
        template(rev),
        UpdateStrategy.rolling("2").byTopology(KEY, order),
        DrainPolicy.waitForever(),
        DrainPolicy.waitForever(),
        List.of());
  }

  /**
   * Six nodes in blocks a (k8s-0, k8s-1) and b (k8s-2): a job on block a, so idleFirst rolls b
   * first; the node labels cannot be read for a while in the middle (nothing is taken meanwhile);
   * the busy node waits for its job; then a second rollout by name, and the NodeSet is deleted.
   */
  @Test
  void recordTopologyRollout() {
    Histories.assumeRecording();
    cluster.labelNode("k8s-0", KEY, "a");
    cluster.labelNode("k8s-1", KEY, "a");
    cluster.labelNode("k8s-2", KEY, "b");
    NodeSetWorkflow wf = startNodeSet("topo", spec(1, 6, "a", null));
    await("6 ready", 120, () -> allReady(wf, 6));
    long job = cluster.startJob("topo-1");
    env.sleep(Duration.ofSeconds(25));
    wf.specChanged(spec(2, 6, "b", null));
    await("block b at b", 300, () -> atRevision(List.of("topo-2", "topo-5"), "b"));
    cluster.kubeDown(true);
    env.sleep(Duration.ofMinutes(3));
    cluster.kubeDown(false);
    await("block a's idle nodes at b", 600, () -> atRevision(List.of("topo-0", "topo-3"), "b"));
    env.sleep(Duration.ofMinutes(2));
    cluster.endJob(job);
    await("all at b", 600, () -> atRevision(List.of("topo-1", "topo-4"), "b"));
    wf.specChanged(spec(3, 6, "c", UpdateStrategy.BY_NAME));
    await(
        "all at c",
        600,
        () -> atRevision(List.of("topo-0", "topo-1", "topo-2", "topo-3", "topo-4", "topo-5"), "c"));
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    WorkflowStub.fromTyped(wf).getResult(Void.class);
    Histories.record(client, "nodeset-topology", Names.nodeSetWorkflowId(NS, "topo"), null);
  }

  private boolean atRevision(List<String> pods, String rev) {
    return pods.stream()
        .allMatch(p -> rev.equals(nodeStatus(p).revision()) && phaseIs(p, NodePhase.READY));
  }
}
