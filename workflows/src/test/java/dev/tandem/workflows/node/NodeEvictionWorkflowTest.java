package dev.tandem.workflows.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.testing.WorkflowTestBase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The evictable label (docs/concepts.md, "Evictions and kubectl drain"): set only while the node is
 * drained and runs no job, removed before the drain is lifted, and a pod evicted while drained is
 * recreated as soon as the pod watcher says so.
 */
class NodeEvictionWorkflowTest extends WorkflowTestBase {

  private NodeLifecycleWorkflow ready(String set) {
    NodeLifecycleWorkflow wf = startNode(set, 0, "a");
    await("ready", 60, () -> phaseIs(set + "-0", NodePhase.READY));
    return wf;
  }

  private NodeLifecycleWorkflow drainedAndEvictable(String set) {
    NodeLifecycleWorkflow wf = ready(set);
    wf.drain(NodeCommand.of("k8s-cordon", "node k8s-0 cordoned in Kubernetes"));
    await("evictable", 30, () -> cluster.evictable(set + "-0"));
    return wf;
  }

  private static boolean has(NodeStatus s, String event) {
    return s.timeline().stream().anyMatch(t -> t.event().equals(event));
  }

  @Test
  void labelledEvictableOnlyOnceDrainedWithNoJob() {
    NodeLifecycleWorkflow wf = ready("busy");
    long job = cluster.startJob("busy-0");
    wf.drain(NodeCommand.of("k8s-cordon", "node k8s-0 cordoned in Kubernetes"));
    await("draining", 30, () -> phaseIs("busy-0", NodePhase.DRAINING));
    env.sleep(Duration.ofMinutes(5));
    assertFalse(cluster.evictable("busy-0"), "never evictable while a job runs");
    assertFalse(cluster.evict("busy-0"), "the budget refuses the eviction");
    cluster.endJob(job);
    await("drained", 30, () -> phaseIs("busy-0", NodePhase.DRAINED));
    await("evictable", 5, () -> cluster.evictable("busy-0"));
    assertTrue(has(nodeStatus("busy-0"), "evictable"));
    assertTrue(cluster.slurmNode("busy-0").drainFlag());
    assertTrue(cluster.violations().isEmpty(), cluster.violations().toString());
  }

  @Test
  void labelRemovedBeforeTheDrainIsLifted() {
    NodeLifecycleWorkflow wf = drainedAndEvictable("lift");
    wf.undrain(NodeCommand.of("k8s-cordon", "cleared in Kubernetes"));
    await("ready", 30, () -> phaseIs("lift-0", NodePhase.READY));
    assertFalse(cluster.evictable("lift-0"));
    assertFalse(cluster.slurmNode("lift-0").drainFlag());
    List<String> calls = cluster.calls();
    int unlabel = calls.lastIndexOf("unlabel lift-0");
    int undrain = calls.lastIndexOf("undrain lift-0");
    assertTrue(unlabel >= 0 && undrain > unlabel, "unlabel before undrain: " + calls);
  }

  @Test
  void notUndrainedWhileTheLabelCannotBeRemoved() {
    NodeLifecycleWorkflow wf = drainedAndEvictable("stuck");
    cluster.labelsDown(true);
    wf.undrain(NodeCommand.of("k8s-cordon", "cleared in Kubernetes"));
    env.sleep(Duration.ofMinutes(5));
    NodeStatus s = nodeStatus("stuck-0");
    assertEquals(NodePhase.DRAINED, s.phase());
    assertTrue(cluster.slurmNode("stuck-0").drainFlag(), "still drained in Slurm");
    assertTrue(cluster.evictable("stuck-0"));
    assertNotNull(s.problem());
    assertTrue(s.problem().contains("evictable label"), s.problem());
    cluster.labelsDown(false);
    await("ready", 60, () -> phaseIs("stuck-0", NodePhase.READY));
    assertFalse(cluster.evictable("stuck-0"));
    assertFalse(cluster.slurmNode("stuck-0").drainFlag());
  }

  @Test
  void podEvictedWhileDrainedIsRecreatedOnTheWatchersSignal() {
    NodeLifecycleWorkflow wf = drainedAndEvictable("ev");
    String uid = cluster.pods().get("ev-0").uid();
    env.sleep(Duration.ofSeconds(2)); // just after a pass: the next resync is 10 s away
    assertTrue(cluster.evict("ev-0"));
    wf.podObserved(PodView.absent("ev-0"));
    // Resync is 10 s (WorkflowTestBase.TUNING): recreating within 3 s means the signal did it.
    await("recreated", 3, () -> cluster.podCreations("ev-0") == 2);
    assertNotEquals(uid, cluster.pods().get("ev-0").uid());
    assertTrue(has(nodeStatus("ev-0"), "pod-lost"));
    // Still held by the cordon: drained again, and the new pod is evictable in its turn.
    await("drained again", 30, () -> phaseIs("ev-0", NodePhase.DRAINED));
    await("new pod evictable", 5, () -> cluster.evictable("ev-0"));
    wf.undrain(NodeCommand.of("k8s-cordon", "cleared in Kubernetes"));
    await("ready", 30, () -> phaseIs("ev-0", NodePhase.READY));
    assertFalse(cluster.evictable("ev-0"));
    assertTrue(cluster.violations().isEmpty(), cluster.violations().toString());
  }

  @Test
  void aReplacementNoNodeTakesSaysSoAtOnceAndServesOnceScheduled() {
    NodeLifecycleWorkflow wf = drainedAndEvictable("pend");
    String why = "Unschedulable: 0/3 nodes are available: 1 node(s) were unschedulable.";
    cluster.unschedulable(why);
    assertTrue(cluster.evict("pend-0"));
    wf.podObserved(PodView.absent("pend-0"));
    await(
        "the problem names the reason",
        5,
        () -> {
          NodeStatus s = nodeStatus("pend-0");
          return s.phase() == NodePhase.PROVISIONING
              && ("pod is Pending: " + why).equals(s.problem());
        });
    wf.undrain(NodeCommand.of("k8s-cordon", "cleared in Kubernetes"));
    cluster.schedulePending();
    await("ready", 60, () -> phaseIs("pend-0", NodePhase.READY));
    assertEquals(null, nodeStatus("pend-0").problem());
    assertFalse(cluster.slurmNode("pend-0").drainFlag());
  }
}
