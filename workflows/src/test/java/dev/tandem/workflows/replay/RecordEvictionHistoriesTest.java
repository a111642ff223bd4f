package dev.tandem.workflows.replay;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.testing.Histories;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Records the node workflow's history of the evictable label ({@code Versions.EVICTABLE}) that
 * {@link ReplayTest} replays; runs only on request, like {@link RecordHistoriesTest}:
 *
 * <pre>./mvnw -pl workflows test -Dtest=RecordEvictionHistoriesTest -Dtandem.recordHistories=v4
 * </pre>
 */
class RecordEvictionHistoriesTest extends WorkflowTestBase {

  /**
   * kubectl drain around a job: the cordon drains a busy node; once its job ends it is labelled
   * evictable and evicted; the watcher's report recreates the pod at once, Pending for a while (no
   * node takes it: the problem says so); the new pod is drained and labelled in its turn; the
   * uncordon finds Kubernetes refusing the label's removal for a while (the node stays drained),
   * then it is removed and the drain lifted; finally a delete.
   */
  @Test
  void recordEviction() {
    Histories.assumeRecording();
    NodeLifecycleWorkflow wf = startNode("evict", 0, "a");
    await("ready", 60, () -> phaseIs("evict-0", NodePhase.READY));
    long job = cluster.startJob("evict-0");
    wf.drain(NodeCommand.of("k8s-cordon", "node k8s-0 cordoned in Kubernetes"));
    await("draining", 30, () -> phaseIs("evict-0", NodePhase.DRAINING));
    env.sleep(Duration.ofSeconds(20));
    cluster.endJob(job);
    await("evictable", 60, () -> cluster.evictable("evict-0"));
    env.sleep(Duration.ofSeconds(2));
    cluster.unschedulable("Unschedulable: 0/3 nodes are available: 1 node(s) were unschedulable.");
    cluster.evict("evict-0");
    wf.podObserved(PodView.absent("evict-0"));
    await("recreated", 30, () -> cluster.podCreations("evict-0") == 2);
    env.sleep(Duration.ofSeconds(20));
    cluster.schedulePending();
    await("evictable again", 60, () -> cluster.evictable("evict-0"));
    cluster.labelsDown(true);
    wf.undrain(NodeCommand.of("k8s-cordon", "cleared in Kubernetes"));
    env.sleep(Duration.ofMinutes(3));
    cluster.labelsDown(false);
    await("ready", 120, () -> phaseIs("evict-0", NodePhase.READY));
    wf.delete(NodeCommand.of("scale-down", "shrink"));
    WorkflowStub.fromTyped(wf).getResult(NodePhase.class);
    Histories.record(client, "node-evictable", Names.nodeWorkflowId(NS, "evict-0"), null);
  }
}
