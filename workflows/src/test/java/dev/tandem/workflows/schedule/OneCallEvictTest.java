package dev.tandem.workflows.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.EventRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A preempted pod is told why and evicted with one local activity ({@code announceAndEvict}); an
 * eviction refused for now is asked again alone. The one event recorded on its own afterwards is
 * the preemptor's notice (here: none started, so it says what is known).
 */
class OneCallEvictTest extends ScheduleTestBase {

  @Test
  void aPreemptedPodIsToldAndEvictedInOneCall() {
    PodScheduleWorkflow wf = running("pre");
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "PREEMPTED", "Preempted by job 7", List.of("n1")));
    assertEquals(SchedulePhase.DONE, result(wf));

    Map<String, Long> calls = localActivities("pre");
    assertEquals(1L, calls.get("SchedAnnounceAndEvict"), calls.toString());
    for (String old : List.of("SchedSetPodCondition", "SchedEvictPod")) {
      assertFalse(calls.containsKey(old), old + " was called: " + calls);
    }
    assertEquals(1L, calls.get("SchedRecordEvent"), "only the preemptor's notice: " + calls);
    String message =
        "Slurm preempted job "
            + id
            + " on n1 (state PREEMPTED, reason Preempted by job 7): the pod is evicted";
    Condition c = world.conditions(ScheduleConditions.SLURM_PREEMPTED).get(0);
    assertEquals(Condition.TRUE, c.status());
    assertEquals("Preempted", c.reason());
    assertEquals(message, c.message());
    assertEquals(List.of("pre: " + message), world.evictions);
    List<EventRequest> preempted =
        world.events.stream().filter(x -> x.reason().equals("SlurmPreempted")).toList();
    assertEquals(2, preempted.size(), preempted.toString());
    EventRequest e = preempted.get(0);
    assertEquals("Warning", e.type());
    assertEquals(message, e.message());
  }

  @Test
  void anEvictionRefusedByABudgetIsAskedAgainAloneAndAnnouncedOnce() {
    PodScheduleWorkflow wf = running("held");
    world.refuseEvictions = 2;
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "PREEMPTED", "Preempted by job 8", List.of("n1")));
    assertEquals(SchedulePhase.DONE, result(wf));
    Map<String, Long> calls = localActivities("held");
    assertEquals(1L, calls.get("SchedAnnounceAndEvict"), calls.toString());
    assertEquals(2L, calls.get("SchedEvictPod"), calls.toString());
    assertEquals(1, world.conditions(ScheduleConditions.SLURM_PREEMPTED).size());
    // The announcement once, then the preemptor's notice.
    assertEquals(2, world.events.stream().filter(x -> x.reason().equals("SlurmPreempted")).count());
    assertTrue(world.pods.get("held").terminating());
  }
}
