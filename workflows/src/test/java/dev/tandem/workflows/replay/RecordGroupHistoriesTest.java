package dev.tandem.workflows.replay;

import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.schedule.GroupPhase;
import dev.tandem.workflows.schedule.GroupTestBase;
import dev.tandem.workflows.schedule.PodGroupWorkflow;
import dev.tandem.workflows.testing.Histories;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Records the gang workflow's baseline histories for the current release, which {@link ReplayTest}
 * replays; runs only on request, with the release as the tag, like {@link
 * RecordScheduleHistoriesTest}:
 *
 * <pre>./mvnw -o -B -pl workflows test -Dtest=RecordGroupHistoriesTest
 *     -Dtandem.recordHistories=0.1.0</pre>
 */
class RecordGroupHistoriesTest extends GroupTestBase {

  /**
   * Bound, then member b deleted: a and c are told, evicted and waited for until they are gone,
   * then the job is released.
   */
  @Test
  void recordBound() {
    Histories.assumeRecording();
    PodGroupWorkflow wf = runningGroup(TUNING);
    delete(wf, member("b", 3));
    await(
        "waiting for a and c to stop",
        5,
        () -> wf.status().timeline().stream().anyMatch(e -> e.event().equals("awaiting-stop")));
    delete(wf, member("a", 3));
    delete(wf, member("c", 3));
    result(wf);
    write("group-bound");
  }

  /** A garbage signal, then the job preempted: every member is told and evicted. */
  @Test
  void recordPreempted() {
    Histories.assumeRecording();
    PodGroupWorkflow wf = runningGroup(TUNING);
    client.newUntypedWorkflowStub(groupId()).signal("memberObserved", "garbage");
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "PREEMPTED", "Preempted", List.of("n1", "n2", "n3")));
    result(wf);
    write("group-preempted");
  }

  /** Members that disagree on the group size: INVALID until they are deleted. */
  @Test
  void recordInvalid() {
    Histories.assumeRecording();
    join(member("a", 3));
    join(member("b", 3));
    PodGroupWorkflow wf = join(member("c", 4));
    await("invalid", 10, () -> in(wf, GroupPhase.INVALID));
    env.sleep(Duration.ofSeconds(30));
    for (String n : List.of("a", "b", "c")) {
      delete(wf, member(n, 3));
    }
    result(wf);
    write("group-invalid");
  }

  /**
   * Gathering with re-reads and a continue-as-new; then the job waits, and the members are told the
   * reason Slurm gives; a member deleted without a signal ends the group on a re-read.
   */
  @Test
  void recordWait() {
    Histories.assumeRecording();
    Tuning small = new Tuning(1, 2, 200, 200, 120, true);
    join(member("a", 3), small);
    PodGroupWorkflow wf = join(member("b", 3), small);
    env.sleep(Duration.ofSeconds(60));
    join(member("c", 3), small);
    await("pending", 10, () -> in(wf, GroupPhase.PENDING));
    wf.jobObserved(world.setJob(world.onlyJobId(), "PENDING", "Resources", List.of()));
    await("told", 5, () -> last("b", "SlurmScheduled").message().endsWith(": Resources"));
    env.sleep(Duration.ofSeconds(20));
    world.pods.remove("a");
    result(wf);
    write("group-wait");
  }

  private void write(String name) {
    Histories.record(client, name, groupId(), null);
  }
}
