package dev.tandem.workflows.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.PodView;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A pod whose job runs is bound with one local activity ({@code placePod}: node lookup, bind,
 * condition, event), and the pod is told it runs where its job runs.
 */
class OneCallBindTest extends ScheduleTestBase {

  @Test
  void aRunningJobsPodIsBoundInOneCallThatAlsoMarksIt() {
    PodScheduleWorkflow wf = running("one");
    long id = world.jobOf("uid-one");
    world.pods.remove("one");
    wf.podObserved(PodView.absent("one"));
    assertEquals(SchedulePhase.DONE, result(wf));

    Map<String, Long> calls = localActivities("one");
    assertEquals(1L, calls.get("SchedPlacePod"), calls.toString());
    for (String old :
        List.of(
            "SchedSlurmNodeToK8sNode",
            "SchedBindPod",
            "SchedSetPodCondition",
            "SchedRecordEvent")) {
      assertTrue(!calls.containsKey(old), old + " was called: " + calls);
    }
    assertEquals(1, world.placements.size());
    PlacementRequest r = world.placements.get(0);
    assertEquals(id, r.jobId());
    assertEquals("n1", r.slurmNode());
    assertEquals(
        List.of(new BindRequest("default", "one", "uid-one", "k1", id, "n1")), world.binds);
    List<Condition> sched = world.conditions(ScheduleConditions.SLURM_SCHEDULED);
    assertEquals(1, sched.size(), sched.toString());
    assertEquals(Condition.TRUE, sched.get(0).status());
    assertEquals("JobRunning", sched.get(0).reason());
    assertEquals(
        "Slurm job " + id + " on Slurm node n1 (Kubernetes node k1)", sched.get(0).message());
    EventRequest e = world.events.get(world.events.size() - 1);
    assertEquals("Scheduled", e.reason());
    assertEquals("Bound to k1: Slurm job " + id + " on Slurm node n1", e.message());
    assertEquals("k1", wf.status().k8sNode());
  }
}
