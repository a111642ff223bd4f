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
 * Records the gang workflow's histories that {@link ReplayTest} replays; runs only on request, like
 * {@link RecordScheduleHistoriesTest}:
 *
 * <pre>./mvnw -pl workflows test -Dtest=RecordGroupHistoriesTest -Dtandem.recordHistories=v1
 * </pre>
 */
class RecordGroupHistoriesTest extends GroupTestBase {

  @Test
  void recordBound() {
    Histories.assumeRecording();
    PodGroupWorkflow wf = runningGroup(TUNING);
    delete(wf, member("b", 3));
    result(wf);
    write("group-bound");
  }

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

  @Test
  void recordWait() {
    Histories.assumeRecording();
    Tuning small = new Tuning(1, 2, 200, 200, 120, true);
    join(member("a", 3), small);
    PodGroupWorkflow wf = join(member("b", 3), small);
    env.sleep(Duration.ofSeconds(60)); // gathering with re-reads, continuing as new
    join(member("c", 3), small);
    await("pending", 10, () -> in(wf, GroupPhase.PENDING));
    env.sleep(Duration.ofSeconds(20));
    world.pods.remove("a"); // lost signal: the timer re-read ends the group
    result(wf);
    write("group-wait");
  }

  /**
   * A member gone while its eviction for the preempted job answers ({@code
   * Versions.JOB_ENDING_FIRST}; recorded from v23 on).
   */
  @Test
  void recordEvictionRace() {
    Histories.assumeRecording();
    PodGroupWorkflow wf = preemptedWhileAMemberGoes();
    result(wf);
    write("group-eviction-race");
  }

  /**
   * Member b deleted, the others gone before the task that evicted them completes ({@code
   * Versions.FIRST_GONE_MEMBER}; recorded from v24 on).
   */
  @Test
  void recordFirstGone() {
    Histories.assumeRecording();
    PodGroupWorkflow wf = bDeletedAndTheOthersGoneAtOnce();
    result(wf);
    write("group-first-gone");
  }

  /**
   * Every member gone, found by a re-read: the job is released, not cancelled ({@code
   * Versions.RELEASE_STOPPED}; recorded from v25 on).
   */
  @Test
  void recordAllStopped() {
    Histories.assumeRecording();
    PodGroupWorkflow wf = runningGroup(TUNING);
    List.of("a", "b", "c").forEach(world.pods::remove);
    result(wf);
    write("group-all-stopped");
  }

  /**
   * Member b deleted, a and c evicted and waited for, then gone: the job is released ({@code
   * Versions.RELEASE_STOPPED} 2; recorded from v26 on).
   */
  @Test
  void recordStopping() {
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
    write("group-stopping");
  }

  /**
   * Slurm refuses the group's job for good, reported as the real activities report it (with the
   * Slurm client's exception as the refusal's cause), then the members are deleted. Recorded before
   * {@code Versions.REFUSAL_WITH_CAUSE} (v29 tag) and after it (v30).
   */
  @Test
  void recordRefusedWithCause() {
    Histories.assumeRecording();
    world.refuseSubmit = "Invalid partition name specified";
    join(member("a", 2));
    PodGroupWorkflow wf = join(member("b", 2));
    env.sleep(Duration.ofSeconds(5));
    for (String n : List.of("a", "b")) {
      delete(wf, member(n, 2));
    }
    result(wf);
    write("group-refused-caused");
  }

  /**
   * A gang whose job waits with a reason Slurm gives, told to its members ({@code
   * Versions.GROUP_QUEUED_REASON}, v31), then run and ended by a member's deletion.
   */
  @Test
  void recordQueuedReason() {
    Histories.assumeRecording();
    world.slurmToK8s.put("n1", "k1");
    world.slurmToK8s.put("n2", "k2");
    join(member("a", 2));
    PodGroupWorkflow wf = join(member("b", 2));
    await("pending", 10, () -> in(wf, GroupPhase.PENDING));
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "PENDING", "ReqNodeNotAvail", List.of()));
    await("told", 5, () -> last("b", "SlurmScheduled").message().endsWith(": ReqNodeNotAvail"));
    wf.jobObserved(world.setJob(id, "RUNNING", "None", List.of("n1", "n2")));
    await("running", 10, () -> in(wf, GroupPhase.RUNNING));
    delete(wf, member("a", 2));
    result(wf);
    write("group-queued-reason");
  }

  private void write(String name) {
    Histories.record(client, name, groupId(), null);
  }
}
