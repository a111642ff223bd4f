package dev.tandem.workflows.replay;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.UpdateCommand;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.testing.Histories;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Records the node workflow's history of pod replacements ({@code Versions.FRESH_RECORD}: the Slurm
 * record removed between the old pod and the new one) that {@link ReplayTest} replays; runs only on
 * request, like {@link RecordHistoriesTest}:
 *
 * <pre>./mvnw -pl workflows test -Dtest=RecordFreshRecordHistoriesTest -Dtandem.recordHistories=v2
 * </pre>
 *
 * node-fresh-record-v1.json is the same scenario recorded with the code before the change (a
 * scratch worktree of its parent commit), node-fresh-record-v2.json after it.
 */
class RecordFreshRecordHistoriesTest extends WorkflowTestBase {

  /**
   * A rolling update (pod deleted, record removed, pod created at b); the pod then deleted behind
   * Tandem's back while slurmctld still counts a job on the node (the removal is refused until the
   * job ends, then the pod is recreated); finally a delete.
   */
  @Test
  void recordFreshRecord() {
    Histories.assumeRecording();
    NodeLifecycleWorkflow wf = startNode("fresh", 0, "a");
    await("ready", 60, () -> phaseIs("fresh-0", NodePhase.READY));
    wf.update(new UpdateCommand(template("b"), true, null));
    await(
        "at b",
        120,
        () -> "b".equals(nodeStatus("fresh-0").revision()) && phaseIs("fresh-0", NodePhase.READY));
    cluster.deletePodBehindBack("fresh-0");
    long job = cluster.startJob("fresh-0");
    wf.podObserved(PodView.absent("fresh-0"));
    env.sleep(Duration.ofSeconds(8));
    cluster.endJob(job);
    await(
        "recreated",
        120,
        () -> cluster.podCreations("fresh-0") == 3 && phaseIs("fresh-0", NodePhase.READY));
    wf.delete(NodeCommand.of("scale-down", "shrink"));
    WorkflowStub.fromTyped(wf).getResult(NodePhase.class);
    Histories.record(client, "node-fresh-record", Names.nodeWorkflowId(NS, "fresh-0"), null);
  }
}
