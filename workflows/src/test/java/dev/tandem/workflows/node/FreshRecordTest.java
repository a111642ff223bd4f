package dev.tandem.workflows.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.UpdateCommand;
import dev.tandem.workflows.testing.WorkflowTestBase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A replaced pod's Slurm node record goes after the old pod is gone and before the new pod is made
 * ({@link FreshRecord}), so a dynamic node registers again with the new pod's settings.
 */
class FreshRecordTest extends WorkflowTestBase {

  /** The calls about {@code pod} among pod deletes and creates and record removals, in order. */
  private List<String> replacementCalls(String pod) {
    return cluster.calls().stream()
        .filter(c -> c.endsWith(" " + pod) || c.contains(" " + pod + " "))
        .filter(
            c -> c.startsWith("deletePod") || c.startsWith("createPod") || c.startsWith("remove"))
        .toList();
  }

  private static boolean has(NodeStatus s, String event) {
    return s.timeline().stream().anyMatch(t -> t.event().equals(event));
  }

  @Test
  void updateRemovesTheRecordBetweenPodDeleteAndCreate() {
    NodeLifecycleWorkflow wf = startNode("fr", 0, "a");
    await("ready", 60, () -> phaseIs("fr-0", NodePhase.READY));
    assertEquals(List.of("createPod fr-0 a"), replacementCalls("fr-0"), "a first pod: no removal");
    wf.update(new UpdateCommand(template("b"), true, null));
    await(
        "at b",
        120,
        () -> "b".equals(nodeStatus("fr-0").revision()) && phaseIs("fr-0", NodePhase.READY));
    assertEquals(
        List.of("createPod fr-0 a", "deletePod fr-0", "removeNode fr-0", "createPod fr-0 b"),
        replacementCalls("fr-0"));
    assertTrue(has(nodeStatus("fr-0"), "slurm-record-removed"));
    assertFalse(cluster.slurmNode("fr-0").drainFlag(), "the new record serves");
  }

  @Test
  void lostPodWaitsForItsJobsToLeaveTheRecordThenRemovesItAndRecreates() {
    startNode("lost", 0, "a");
    await("ready", 60, () -> phaseIs("lost-0", NodePhase.READY));
    cluster.deletePodBehindBack("lost-0");
    long job = cluster.startJob("lost-0"); // slurmctld still counts it until it marks the node DOWN
    node("lost-0").podObserved(PodView.absent("lost-0"));
    env.sleep(Duration.ofMinutes(2));
    assertEquals(1, cluster.podCreations("lost-0"), "no new pod while the record is held");
    assertTrue(nodeStatus("lost-0").problem() == null || phaseIs("lost-0", NodePhase.PROVISIONING));
    cluster.endJob(job);
    await("recreated and ready", 120, () -> phaseIs("lost-0", NodePhase.READY));
    assertEquals(
        List.of("createPod lost-0 a", "removeNode lost-0", "createPod lost-0 a"),
        replacementCalls("lost-0"));
  }

  @Test
  void anAdministratorsDrainKeepsTheRecord() {
    NodeLifecycleWorkflow wf = startNode("adm", 0, "a");
    await("ready", 60, () -> phaseIs("adm-0", NodePhase.READY));
    cluster.adminDrain("adm-0", "bad DIMM");
    wf.update(new UpdateCommand(template("b"), true, null));
    await(
        "at b",
        120,
        () -> "b".equals(nodeStatus("adm-0").revision()) && phaseIs("adm-0", NodePhase.READY));
    assertEquals(
        List.of("createPod adm-0 a", "deletePod adm-0", "createPod adm-0 b"),
        replacementCalls("adm-0"));
    assertEquals("bad DIMM", cluster.slurmNode("adm-0").reason());
    assertTrue(has(nodeStatus("adm-0"), "slurm-record-kept"));
  }
}
