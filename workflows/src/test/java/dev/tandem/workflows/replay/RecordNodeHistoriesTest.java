package dev.tandem.workflows.replay;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.TimeoutAction;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.model.UpdateCommand;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.testing.Histories;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Records the node workflow's baseline histories that {@link ReplayTest} replays. Runs only on
 * request ({@link Histories}); each scenario ends with the node deleted, so its history is whole.
 */
class RecordNodeHistoriesTest extends WorkflowTestBase {
  /** Continue-as-new after 200 events (the minimum), so a short scenario spans several runs. */
  private static final Tuning SHORT_HISTORY = new Tuning(1, 10, 200, 200, 120, true);

  /**
   * Provision; an administrator's drain and a manual drain (drained, the pod labelled evictable);
   * undrain (the administrator's drain stays); an update that waits for a job; a delete that forces
   * a busy node down.
   */
  @Test
  void recordNodeLifecycle() {
    Histories.assumeRecording();
    NodeLifecycleWorkflow wf = startNode("life", 0, "a");
    await("ready", 60, () -> phaseIs("life-0", NodePhase.READY));
    cluster.adminDrain("life-0", "disk");
    wf.drain(NodeCommand.of("manual", "check"));
    await("drained", 60, () -> phaseIs("life-0", NodePhase.DRAINED));
    await("evictable", 60, () -> cluster.evictable("life-0"));
    cluster.adminResume("life-0");
    wf.undrain(NodeCommand.of("manual", "ok"));
    await("ready", 60, () -> phaseIs("life-0", NodePhase.READY));
    long job = cluster.startJob("life-0");
    wf.update(new UpdateCommand(template("b"), true, DrainPolicy.waitForever()));
    env.sleep(Duration.ofSeconds(10));
    cluster.endJob(job);
    await("updated", 120, () -> atRevision("life-0", "b"));
    cluster.startJob("life-0");
    wf.delete(
        NodeCommand.of("scale-down", "shrink")
            .withPolicy(new DrainPolicy(20, TimeoutAction.FORCE)));
    finish(wf, "node-lifecycle", "life-0");
  }

  /**
   * Safety re-reads at rest: five minutes ready with no signal (the waits grow to the longest), an
   * administrator's drain whose signal is lost (a re-read finds it), a drain and five minutes
   * drained, an undrain, a delete.
   */
  @Test
  void recordRestTimer() {
    Histories.assumeRecording();
    NodeLifecycleWorkflow wf = startNode("rest", 0, "a");
    await("ready", 60, () -> phaseIs("rest-0", NodePhase.READY));
    env.sleep(Duration.ofMinutes(5));
    cluster.adminDrain("rest-0", "bad DIMM");
    await("seen", 200, () -> nodeStatus("rest-0").slurm().drainFlag());
    cluster.adminResume("rest-0");
    wf.drain(NodeCommand.of("manual", "maintenance"));
    await("drained", 60, () -> phaseIs("rest-0", NodePhase.DRAINED));
    env.sleep(Duration.ofMinutes(5));
    wf.undrain(NodeCommand.of("manual", "done"));
    await("ready", 60, () -> phaseIs("rest-0", NodePhase.READY));
    wf.delete(NodeCommand.of("scale-down", "shrink"));
    finish(wf, "node-rest", "rest-0");
  }

  /**
   * A drain while Slurm shows the node NOT_RESPONDING (it pings the slurmd after every undrain):
   * the drain is set at once; a delete follows.
   */
  @Test
  void recordNotRespondingDrain() {
    Histories.assumeRecording();
    cluster.notRespondingAfterUndrain(3);
    NodeLifecycleWorkflow wf = startNode("png", 0, "a");
    await("ready", 60, () -> phaseIs("png-0", NodePhase.READY));
    wf.drain(NodeCommand.of("k8s-cordon", "first"));
    await("drained", 60, () -> phaseIs("png-0", NodePhase.DRAINED));
    wf.undrain(NodeCommand.of("k8s-cordon", "cleared"));
    await("ready", 60, () -> phaseIs("png-0", NodePhase.READY));
    wf.drain(NodeCommand.of("k8s-cordon", "second"));
    await(
        "drained in Slurm",
        120,
        () -> phaseIs("png-0", NodePhase.DRAINED) && nodeStatus("png-0").slurm().drainFlag());
    wf.undrain(NodeCommand.of("k8s-cordon", "cleared again"));
    await("ready", 60, () -> phaseIs("png-0", NodePhase.READY));
    wf.delete(NodeCommand.of("scale-down", "shrink"));
    finish(wf, "node-not-responding", "png-0");
  }

  /**
   * A Slurm outage while a drain is asked: the local calls fail their quick attempts and go on as
   * regular activities until they give up, the problem shows, and the drain lands once Slurm is
   * back.
   */
  @Test
  void recordSlurmOutage() {
    Histories.assumeRecording();
    NodeLifecycleWorkflow wf = startNode("outage", 0, "a");
    await("ready", 60, () -> phaseIs("outage-0", NodePhase.READY));
    cluster.slurmDown(true);
    wf.drain(NodeCommand.of("manual", "during an outage"));
    await("problem shown", 600, () -> nodeStatus("outage-0").problem() != null);
    cluster.slurmDown(false);
    await("drained", 120, () -> phaseIs("outage-0", NodePhase.DRAINED));
    wf.delete(NodeCommand.of("scale-down", "shrink"));
    finish(wf, "node-outage", "outage-0");
  }

  /**
   * An update during which Slurm stops answering for 20 s: the removal of the old pod's node record
   * fails its quick local attempts and goes on as a regular activity, retried until Slurm answers
   * again; the new pod is created and the update completes. Then a delete.
   */
  @Test
  void recordActivityRetried() {
    Histories.assumeRecording();
    NodeLifecycleWorkflow wf = startNode("retry", 0, "a");
    await("ready", 60, () -> phaseIs("retry-0", NodePhase.READY));
    wf.update(new UpdateCommand(template("b"), true, DrainPolicy.waitForever()));
    await("updating", 60, () -> phaseIs("retry-0", NodePhase.UPDATING));
    cluster.slurmDown(true);
    env.sleep(Duration.ofSeconds(20));
    cluster.slurmDown(false);
    await("updated", 300, () -> atRevision("retry-0", "b"));
    wf.delete(NodeCommand.of("scale-down", "shrink"));
    finish(wf, "node-activity-retried", "retry-0");
  }

  /**
   * Continue-as-new while held drained by a manual drain; then an undrain and a delete. Every run
   * is recorded, so the replayer also starts a run from a carried-over state.
   */
  @Test
  void recordNodeContinueAsNew() {
    Histories.assumeRecording();
    NodeLifecycleWorkflow wf = startNode("can", 0, "a", SHORT_HISTORY);
    String id = Names.nodeWorkflowId(NS, "can-0");
    String first = WorkflowStub.fromTyped(wf).getExecution().getRunId();
    await("ready", 60, () -> phaseIs("can-0", NodePhase.READY));
    wf.drain(NodeCommand.of("manual", "maintenance"));
    await("continued while drained", 1200, () -> Histories.runs(client, id, first).size() >= 2);
    wf.undrain(NodeCommand.of("manual", "done"));
    await("ready", 60, () -> phaseIs("can-0", NodePhase.READY));
    wf.delete(NodeCommand.of("scale-down", "shrink"));
    WorkflowStub.fromTyped(wf).getResult(NodePhase.class);
    Histories.recordRuns(client, "node-continued", id, first);
  }

  private boolean atRevision(String pod, String rev) {
    return rev.equals(nodeStatus(pod).revision()) && phaseIs(pod, NodePhase.READY);
  }

  private void finish(NodeLifecycleWorkflow wf, String name, String pod) {
    WorkflowStub.fromTyped(wf).getResult(NodePhase.class);
    Histories.record(client, name, Names.nodeWorkflowId(NS, pod), null);
  }
}
