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
 * A pod view about the pod a node replaced, signalled only once the node serves on the new one, is
 * not taken for the new pod being lost. Found in the fault suite: a pod watcher whose watch
 * reconnected after the API's 503s delivered the old pod's "terminating" and "deleted" events in a
 * burst, after the update they came from; the code before took the new, running pod for lost,
 * drained the node and recreated the pod.
 */
class EarlierPodTest extends WorkflowTestBase {

  @Test
  void aLateViewOfTheReplacedPodIsNotTakenForLost() {
    NodeLifecycleWorkflow wf = startNode("late", 0, "a");
    await("ready", 60, () -> phaseIs("late-0", NodePhase.READY));
    PodView old = cluster.pods().get("late-0");

    wf.update(new UpdateCommand(template("b"), true, null));
    await(
        "in service at revision b",
        120,
        () -> phaseIs("late-0", NodePhase.READY) && "b".equals(nodeStatus("late-0").revision()));
    PodView now = cluster.pods().get("late-0");
    assertTrue(old.createdAt().isBefore(now.createdAt()), "the new pod was created after");
    assertEquals(2, cluster.podCreations("late-0"));

    // What the watcher saw of the old pod during the update, delivered only now.
    wf.podObserved(
        new PodView(
            true,
            old.name(),
            old.uid(),
            old.revision(),
            old.phase(),
            false,
            old.k8sNode(),
            true,
            old.createdAt(),
            old.startedAt(),
            null));
    wf.podObserved(PodView.gone(old.name(), old.uid(), old.createdAt()));
    env.sleep(Duration.ofSeconds(30));

    NodeStatus s = nodeStatus("late-0");
    List<String> events = s.timeline().stream().map(t -> t.event()).toList();
    assertFalse(events.contains("pod-lost"), "the running pod taken for lost: " + events);
    assertEquals(NodePhase.READY, s.phase());
    assertEquals(1 + 1, cluster.podCreations("late-0"), "no pod recreated");
    assertFalse(cluster.slurmNode("late-0").drainFlag(), "never drained for it");

    // A view of the pod it holds still counts: that pod deleted behind Tandem's back is replaced.
    cluster.deletePodBehindBack("late-0");
    wf.podObserved(PodView.gone(now.name(), now.uid(), now.createdAt()));
    await("recreated", 60, () -> cluster.podCreations("late-0") == 3);
    assertTrue(
        nodeStatus("late-0").timeline().stream().anyMatch(t -> t.event().equals("pod-lost")));
    await("ready again", 60, () -> phaseIs("late-0", NodePhase.READY));
  }
}
