package dev.tandem.workflows.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.PodRequest;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.TimeoutAction;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.model.UpdateCommand;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import dev.tandem.workflows.testing.Histories;
import dev.tandem.workflows.testing.Leftover;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Records the histories that {@link ReplayTest} replays. Runs only on request, when a change to the
 * workflows is meant to be compatible and new histories should join the old ones:
 *
 * <pre>./mvnw -pl workflows test -Dtest=RecordHistoriesTest -Dtandem.recordHistories=v4</pre>
 *
 * The value names the file suffix; add the new files to {@code histories/index.txt}. One scenario:
 * {@code -Dtest='RecordHistoriesTest#recordHonestStatus'}. Never delete old histories: they stand
 * for workflows that may still be running somewhere. A history recorded with older code (to prove a
 * {@code Workflow.getVersion} guard) is recorded in a scratch worktree of that commit with the same
 * scenario; see docs/upgrading.md.
 */
class RecordHistoriesTest extends WorkflowTestBase {
  @Override
  protected void moreWorkers(io.temporal.testing.TestWorkflowEnvironment env) {
    Leftover.register(env);
  }

  /** Continue-as-new after 200 events (the minimum), so a short scenario spans several runs. */
  private static final Tuning SHORT_HISTORY = new Tuning(1, 10, 200, 200, 120, true);

  @Test
  void recordNodeLifecycle() {
    Histories.assumeRecording();
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

  /**
   * A Slurm outage while a drain is asked (recorded after {@code Versions.LOCAL_NODE_CALLS}): the
   * node's local calls fail their quick attempts, go on as regular activities until they give up,
   * the problem shows, and the drain lands once Slurm is back.
   */
  @Test
  void recordOutage() {
    Histories.assumeRecording();
    NodeLifecycleWorkflow wf = startNode("outage", 0, "a");
    await("ready", 60, () -> phaseIs("outage-0", NodePhase.READY));
    cluster.slurmDown(true);
    wf.drain(NodeCommand.of("manual", "during an outage"));
    await("problem shown", 600, () -> nodeStatus("outage-0").problem() != null);
    cluster.slurmDown(false);
    await("drained", 120, () -> phaseIs("outage-0", NodePhase.DRAINED));
    wf.delete(NodeCommand.of("scale-down", "shrink"));
    WorkflowStub.fromTyped(wf).getResult(NodePhase.class);
    write("node-outage", Names.nodeWorkflowId(NS, "outage-0"));
  }

  @Test
  void recordNodeSet() {
    Histories.assumeRecording();
    NodeSetWorkflow wf = startNodeSet("recset", spec(1, 3, "a"));
    await("3 ready", 120, () -> allReady(wf, 3));
    wf.specChanged(spec(2, 3, "b"));
    awaitRolled(wf, "b", 3);
    wf.specChanged(spec(3, 1, "b"));
    await("scaled down", 300, () -> wf.status().nodes().size() == 1);
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    WorkflowStub.fromTyped(wf).getResult(Void.class);
    write("nodeset", Names.nodeSetWorkflowId(NS, "recset"));
    write("nodeset-child", Names.nodeWorkflowId(NS, "recset-0"));
  }

  /**
   * A NodeSet of 6 rolls 3 at a time and scales down to 2 ({@code Versions.PARALLEL_SIGNALS}): a
   * wave's update signals and the victims' delete signals leave in one task each. The same scenario
   * recorded with the code before (signals one at a time) is nodeset-parallel-signals-v7.json.
   */
  @Test
  void recordParallelSignals() {
    Histories.assumeRecording();
    NodeSetWorkflow wf = startNodeSet("wide", spec(1, 6, "a", 3));
    await("6 ready", 300, () -> allReady(wf, 6));
    wf.specChanged(spec(2, 6, "b", 3));
    awaitRolled(wf, "b", 6);
    wf.specChanged(spec(3, 2, "b", 3));
    await("scaled down", 600, () -> wf.status().nodes().size() == 2);
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    WorkflowStub.fromTyped(wf).getResult(Void.class);
    write("nodeset-parallel-signals", Names.nodeSetWorkflowId(NS, "wide"));
  }

  /**
   * A drain arrives while Slurm shows the node NOT_RESPONDING (Slurm 22.05 pings the slurmd after
   * every UNDRAIN); an update and a delete follow while it pings again. The same scenario recorded
   * with the code before {@code Versions.DRAIN_NOT_RESPONDING} is node-not-responding-v1.json.
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
    long job = cluster.startJob("png-0");
    wf.update(new UpdateCommand(template("b"), true, DrainPolicy.waitForever()));
    env.sleep(Duration.ofSeconds(20));
    cluster.endJob(job);
    await(
        "updated",
        120,
        () -> "b".equals(nodeStatus("png-0").revision()) && phaseIs("png-0", NodePhase.READY));
    wf.delete(NodeCommand.of("scale-down", "shrink"));
    WorkflowStub.fromTyped(wf).getResult(NodePhase.class);
    write("node-not-responding", Names.nodeWorkflowId(NS, "png-0"));
  }

  /**
   * Adoption: pods left behind by a NodeSet whose workflow history was lost, one at the spec's
   * revision and one at an older revision. The NodeSet adopts both; the node workflow of the older
   * one adopts its pod at that revision and is then rolled to the spec's.
   */
  @Test
  void recordAdoption() {
    Histories.assumeRecording();
    cluster.ensurePod(new PodRequest(NodeRef.of(NS, "adopt", 0), template("a"), "uid-ns"));
    cluster.ensurePod(new PodRequest(NodeRef.of(NS, "adopt", 1), template("old"), "uid-ns"));
    NodeSetWorkflow wf = startNodeSet("adopt", spec(1, 3, "a"));
    await(
        "3 ready at a",
        300,
        () ->
            allReady(wf, 3)
                && wf.status().nodes().stream().allMatch(n -> "a".equals(n.revision())));
    assertEquals(1, cluster.podCreations("adopt-0"), "adopted, not recreated");
    assertEquals(2, cluster.podCreations("adopt-1"), "adopted at old, then updated");
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    WorkflowStub.fromTyped(wf).getResult(Void.class);
    write("nodeset-adopt", Names.nodeSetWorkflowId(NS, "adopt"));
    write("node-adopt", Names.nodeWorkflowId(NS, "adopt-1"));
  }

  /**
   * Continue-as-new of a node workflow, several times: held drained by a manual drain, then a
   * delete that waits for a job. Every run is recorded, so the replayer also starts runs from a
   * carried-over state (holds, pending delete, timeline).
   */
  @Test
  void recordNodeContinueAsNew() {
    Histories.assumeRecording();
    NodeLifecycleWorkflow wf = startNode("can", 0, "a", SHORT_HISTORY);
    String id = Names.nodeWorkflowId(NS, "can-0");
    String first = WorkflowStub.fromTyped(wf).getExecution().getRunId();
    await("ready", 60, () -> phaseIs("can-0", NodePhase.READY));
    wf.drain(NodeCommand.of("manual", "maintenance"));
    await("continued while drained", 1200, () -> runs(id, first).size() >= 2);
    wf.undrain(NodeCommand.of("manual", "done"));
    await("ready", 60, () -> phaseIs("can-0", NodePhase.READY));
    long job = cluster.startJob("can-0");
    int before = runs(id, first).size();
    wf.delete(NodeCommand.of("scale-down", "shrink"));
    await("continued while draining", 600, () -> runs(id, first).size() > before);
    cluster.endJob(job);
    WorkflowStub.fromTyped(wf).getResult(NodePhase.class);
    writeRuns("node-continued", id, first);
  }

  /** Continue-as-new of a NodeSet workflow; a rolling update and the deletion follow. */
  @Test
  void recordNodeSetContinueAsNew() {
    Histories.assumeRecording();
    NodeSetWorkflow wf = startNodeSet("canset", spec(1, 2, "a"), SHORT_HISTORY);
    String id = Names.nodeSetWorkflowId(NS, "canset");
    String first = WorkflowStub.fromTyped(wf).getExecution().getRunId();
    await("2 ready", 120, () -> allReady(wf, 2));
    await("continued", 1200, () -> runs(id, first).size() >= 2);
    wf.specChanged(spec(2, 3, "b"));
    await(
        "3 ready at b",
        600,
        () ->
            allReady(wf, 3)
                && wf.status().nodes().stream().allMatch(n -> "b".equals(n.revision())));
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    WorkflowStub.fromTyped(wf).getResult(Void.class);
    writeRuns("nodeset-continued", id, first);
  }

  /**
   * Honest status (Versions.HONEST_STATUS): the watchers' health reports, an administrator's drain
   * during a rolling update (the rollout waits), a busy scale-down, a report going stale.
   */
  @Test
  void recordHonestStatus() {
    Histories.assumeRecording();
    NodeSetWorkflow wf = startNodeSet("honest", spec(1, 3, "a"));
    await("3 ready", 120, () -> allReady(wf, 3));
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    wf.clusterHealth(new ClusterHealth(ClusterHealth.SLURM, true, "slurmrestd answers", t, t));
    wf.clusterHealth(new ClusterHealth(ClusterHealth.KUBERNETES, true, "API answers", t, t));
    cluster.adminDrain("honest-1", "disk");
    await("drain seen", 60, () -> wf.status().nodes().get(1).slurmState().equals("idle+DRAIN"));
    wf.specChanged(spec(2, 3, "b"));
    env.sleep(Duration.ofMinutes(2));
    wf.clusterHealth(
        new ClusterHealth(ClusterHealth.SLURM, false, "connection refused", t, t.plusSeconds(120)));
    env.sleep(Duration.ofSeconds(30));
    cluster.adminResume("honest-1");
    await(
        "all at b",
        600,
        () ->
            allReady(wf, 3)
                && wf.status().nodes().stream().allMatch(n -> "b".equals(n.revision())));
    long job = cluster.startJob("honest-2");
    long job0 = cluster.startJob("honest-0");
    long job1 = cluster.startJob("honest-1");
    env.sleep(Duration.ofSeconds(25));
    wf.specChanged(spec(3, 2, "b"));
    env.sleep(Duration.ofMinutes(4)); // the health reports go stale meanwhile
    cluster.endJob(job);
    await("scaled down", 300, () -> wf.status().nodes().size() == 2);
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    cluster.endJob(job0);
    cluster.endJob(job1);
    WorkflowStub.fromTyped(wf).getResult(Void.class);
    write("nodeset-honest", Names.nodeSetWorkflowId(NS, "honest"));
    write("node-honest", Names.nodeWorkflowId(NS, "honest-1"));
  }

  /**
   * A revision whose pod the cluster refuses (Versions.POD_REJECTED): the rollout of b stops and
   * the node whose old pod was deleted returns to a; then c rolls out and the NodeSet is deleted.
   * The same scenario recorded with the code before the change is *-pod-rejected-v1.json (there the
   * node retries b every poll).
   */
  @Test
  void recordPodRejected() {
    Histories.assumeRecording();
    cluster.rejectRevision("b", "unknown field \"spec.containers[0].resizePolicy\"");
    NodeSetWorkflow wf = startNodeSet("rejset", spec(1, 2, "a"));
    await("2 ready", 120, () -> allReady(wf, 2));
    wf.specChanged(spec(2, 2, "b"));
    env.sleep(Duration.ofMinutes(10));
    wf.specChanged(spec(3, 2, "c"));
    await(
        "2 ready at c",
        600,
        () ->
            allReady(wf, 2)
                && wf.status().nodes().stream().allMatch(n -> "c".equals(n.revision())));
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    WorkflowStub.fromTyped(wf).getResult(Void.class);
    write("nodeset-pod-rejected", Names.nodeSetWorkflowId(NS, "rejset"));
    write("node-pod-rejected", Names.nodeWorkflowId(NS, "rejset-1"));
  }

  /**
   * Safety re-reads at rest ({@code Versions.REST_BACKOFF}): a node ready for ten minutes with no
   * signal, a change whose signal is lost (an administrator's drain), a drain and ten minutes
   * drained, an undrain, a delete. Recorded with the code before the change as node-rest-v1.json (a
   * scratch worktree of its parent commit) and after it as node-rest-v5.json.
   */
  @Test
  void recordRestBackoff() {
    Histories.assumeRecording();
    NodeLifecycleWorkflow wf = startNode("rst", 0, "a");
    await("ready", 60, () -> phaseIs("rst-0", NodePhase.READY));
    env.sleep(Duration.ofMinutes(10));
    cluster.adminDrain("rst-0", "bad DIMM");
    await("seen", 200, () -> nodeStatus("rst-0").slurm().drainFlag());
    cluster.adminResume("rst-0");
    wf.drain(NodeCommand.of("manual", "maintenance"));
    await("drained", 60, () -> phaseIs("rst-0", NodePhase.DRAINED));
    env.sleep(Duration.ofMinutes(10));
    wf.undrain(NodeCommand.of("manual", "done"));
    await("ready", 60, () -> phaseIs("rst-0", NodePhase.READY));
    env.sleep(Duration.ofMinutes(3));
    wf.delete(NodeCommand.of("scale-down", "shrink"));
    WorkflowStub.fromTyped(wf).getResult(NodePhase.class);
    write("node-rest", Names.nodeWorkflowId(NS, "rst-0"));
  }

  /** The run ids of a workflow, first to latest, following continue-as-new. */
  private boolean ended(String workflowId, String runId) {
    EventType t = client.fetchHistory(workflowId, runId).getLastEvent().getEventType();
    return t == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED
        || t == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW;
  }

  private List<String> runs(String workflowId, String firstRunId) {
    List<String> ids = new ArrayList<>(List.of(firstRunId));
    for (int i = 0; i < 50; i++) {
      HistoryEvent last = client.fetchHistory(workflowId, ids.get(ids.size() - 1)).getLastEvent();
      if (last.getEventType() != EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW) {
        return ids;
      }
      ids.add(last.getWorkflowExecutionContinuedAsNewEventAttributes().getNewExecutionRunId());
    }
    return ids;
  }

  private void writeRuns(String name, String workflowId, String firstRunId) {
    List<String> ids = runs(workflowId, firstRunId);
    for (int i = 0; i < ids.size(); i++) {
      Histories.record(client, name + "-run" + (i + 1), workflowId, ids.get(i));
    }
  }

  /**
   * Garbage signal payloads of every kind, recorded with the code from before signal payloads were
   * read leniently (when the SDK dropped what it could not deserialize): replaying it proves that
   * the rejections recorded since change no command. Run alone: {@code
   * -Dtest=RecordHistoriesTest#recordGarbageSignals -Dtandem.recordHistories=v1}.
   */
  @Test
  void recordGarbageSignals() {
    Histories.assumeRecording();
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

  /**
   * A NodeSet of 2 whose first node workflow id is still held by a workflow about to end ({@code
   * Versions.START_PROBE}), then deleted. The same scenario recorded with the code before (the
   * holder taken for the node until 30 resync periods passed) is nodeset-start-probe-v8.json. Run
   * alone: {@code -Dtest=RecordHistoriesTest#recordStartProbe -Dtandem.recordHistories=v9}.
   */
  @Test
  void recordStartProbe() {
    Histories.assumeRecording();
    Leftover.start(client, Names.nodeWorkflowId(NS, "again-0"), 8);
    NodeSetWorkflow wf = startNodeSet("again", spec(1, 2, "a"));
    await("2 ready", 600, () -> allReady(wf, 2));
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    WorkflowStub.fromTyped(wf).getResult(Void.class);
    write("nodeset-start-probe", Names.nodeSetWorkflowId(NS, "again"));
  }

  /**
   * A NodeSet of 1 is deleted, and a custom resource of the same name (another uid) sends its spec
   * while the old run is still deleting ({@code Versions.SUCCESSOR}); recorded until the new run's
   * 2 nodes are ready, as runs (the old run, then the new one it continues as). Recorded with the
   * code before, the old run took the spec for its own and ended (nodeset-successor-v9). Run alone:
   * {@code -Dtest=RecordHistoriesTest#recordSuccessor -Dtandem.recordHistories=v10}.
   */
  @Test
  void recordSuccessor() {
    Histories.assumeRecording();
    NodeSetWorkflow wf = startNodeSet("succ", spec(1, 1, "a"));
    String firstRun = WorkflowStub.fromTyped(wf).getExecution().getRunId();
    await("1 ready", 120, () -> allReady(wf, 1));
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    wf.specChanged(withUid(spec(1, 2, "b"), "uid-successor"));
    await("the old run ended", 300, () -> ended(Names.nodeSetWorkflowId(NS, "succ"), firstRun));
    env.sleep(java.time.Duration.ofSeconds(60));
    writeRuns("nodeset-successor", Names.nodeSetWorkflowId(NS, "succ"), firstRun);
  }

  /**
   * A node at rest for 600 s whose pod view is resent unchanged every 30 s, as the watchers do on
   * each informer resync ({@code Versions.REST_NEWS}): with the code before, every resend started
   * the re-read back-off again (node-rest-signals-v10); with it, the waits grow as without the
   * resends (-v11). Run alone: {@code -Dtest=RecordHistoriesTest#recordRestSignals
   * -Dtandem.recordHistories=v11}.
   */
  @Test
  void recordRestSignals() {
    Histories.assumeRecording();
    startNode("resent", 0, "a");
    await("ready", 60, () -> phaseIs("resent-0", NodePhase.READY));
    PodView pod = nodeStatus("resent-0").pod();
    for (int i = 0; i < 20; i++) {
      env.sleep(java.time.Duration.ofSeconds(30));
      node("resent-0").podObserved(pod);
    }
    write("node-rest-signals", Names.nodeWorkflowId(NS, "resent-0"));
  }

  private void write(String name, String workflowId) {
    Histories.record(client, name, workflowId, null);
  }
}
