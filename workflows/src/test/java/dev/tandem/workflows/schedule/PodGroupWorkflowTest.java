package dev.tandem.workflows.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.model.Tuning;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodGroupWorkflowTest extends GroupTestBase {
  private static final String SCHED = ScheduleConditions.SLURM_SCHEDULED;

  @Test
  void membersWaitForTheWholeGroupWithoutAJob() {
    join(member("a", 3));
    PodGroupWorkflow wf = join(member("b", 3));
    await("waiting", 10, () -> last("b", SCHED) != null);
    String msg =
        "2 of 3 members of group g are here (a, b); the group's Slurm job is submitted once all"
            + " are (no timeout)";
    for (String p : List.of("a", "b")) {
      Condition c = last(p, SCHED);
      assertEquals(Condition.FALSE, c.status());
      assertEquals("WaitingForGroup", c.reason());
      assertEquals(msg, c.message());
    }
    env.sleep(Duration.ofMinutes(10));
    assertTrue(in(wf, GroupPhase.GATHERING), "no timeout: " + wf.status().phase());
    assertTrue(world.jobs.isEmpty(), "no job before the group is whole");
    assertEquals(3, wf.status().size());
    // A member leaves before the job exists: the others wait on, fewer; the last one ends it.
    delete(wf, member("a", 3));
    await("1 of 3", 10, () -> last("b", SCHED).message().startsWith("1 of 3 members"));
    assertEquals(GroupPhase.GATHERING, wf.status().phase());
    delete(wf, member("b", 3));
    assertEquals(GroupPhase.DONE, result(wf));
    assertTrue(world.jobs.isEmpty() && world.evictions.isEmpty());
  }

  @Test
  void aMemberReplacedByANewPodOfTheSameNameEndsTheRunningGroup() {
    PodGroupWorkflow wf = runningGroup(TUNING);
    PodRequest old = member("b", 3);
    PodRequest b2 =
        new PodRequest(
            old.namespace(),
            "b",
            "uid-b2",
            old.requests(),
            old.annotations(),
            old.nodeSelector(),
            old.priorityClassName(),
            old.terminationGracePeriodSeconds(),
            null);
    world.addPod("b", "uid-b2");
    wf.memberObserved(new GroupMember(b2, world.getPod("default", "b")));
    assertEquals(GroupPhase.DONE, result(wf));
    assertEquals(2, world.evictions.size());
    assertTrue(world.evictions.get(0).startsWith("a: member default/b of group g was deleted"));
    assertEquals(List.of(world.onlyJobId()), world.cancelled);
    assertEquals(3, world.binds.size(), "the new b is not bound by this run");
  }

  @Test
  void oneJobBindsAllMembersOnlyWhenEveryNodeMaps() {
    world.slurmToK8s.put("n1", "k1");
    world.slurmToK8s.put("n2", "k2");
    PodGroupWorkflow wf = null;
    for (String n : List.of("c", "a", "b")) {
      wf = join(member(n, 3));
    }
    PodGroupWorkflow g = wf;
    await("pending", 10, () -> in(g, GroupPhase.PENDING));
    PlaceholderJob job = world.submitted.get(0);
    assertEquals(1, world.submitted.size());
    assertEquals(3, job.nodes());
    assertEquals("tandem-pod-default.g.uida", job.name());
    assertEquals("tandem.dev/pod-uid=default.g.uida group=default/g", job.comment());
    assertEquals(1, job.cpusPerNode());
    assertEquals(1024, job.memoryMbPerNode());
    assertEquals(false, job.requeue());
    long id = world.onlyJobId();
    // No signal: the pending phase's timer re-read finds the job running.
    world.setJob(id, "RUNNING", "None", List.of("n3", "n2", "n1"));
    await("binding", 15, () -> in(g, GroupPhase.BINDING));
    env.sleep(Duration.ofSeconds(20));
    assertTrue(world.binds.isEmpty(), "nobody is bound while n3 has no node: " + world.binds);
    assertTrue(g.status().problem().contains("Slurm node n3"), g.status().problem());
    world.slurmToK8s.put("n3", "k3");
    await("running", 10, () -> in(g, GroupPhase.RUNNING));
    assertEquals(
        List.of(
            new BindRequest("default", "a", "uid-a", "k1", id, "n1"),
            new BindRequest("default", "b", "uid-b", "k2", id, "n2"),
            new BindRequest("default", "c", "uid-c", "k3", id, "n3")),
        world.binds);
    for (String p : List.of("a", "b", "c")) {
      assertEquals(Condition.TRUE, last(p, SCHED).status());
      assertEquals("JobRunning", last(p, SCHED).reason());
    }
    PodGroupStatus s = g.status();
    assertEquals("k2", s.members().get(1).k8sNode());
    assertEquals("n2", s.members().get(1).slurmNode());
    assertEquals(id, s.jobId());
  }

  @Test
  void aDeletedMemberEndsTheGroupCancelsTheJobAndEvictsTheOthers() {
    PodGroupWorkflow wf = runningGroup(TUNING);
    long id = world.onlyJobId();
    delete(wf, member("b", 3));
    assertEquals(GroupPhase.DONE, result(wf));
    assertEquals(List.of(id), world.cancelled);
    String msg =
        "member default/b of group g was deleted: the group ends, Slurm job "
            + id
            + " is cancelled, and its other members are evicted";
    assertEquals(List.of("a: " + msg, "c: " + msg), world.evictions);
    for (String p : List.of("a", "c")) {
      Condition c = last(p, ScheduleConditions.SLURM_JOB_ENDED);
      assertEquals("GroupMemberEnded", c.reason());
      assertEquals(msg, c.message());
    }
    assertNull(last("b", ScheduleConditions.SLURM_JOB_ENDED));
    // Every event on a member names the group: a deleted member's events lead to its history.
    assertFalse(world.events.isEmpty());
    world.events.forEach(ev -> assertEquals("g", ev.group(), ev.toString()));
    // Evict first: the job holds the nodes until the pods on them are gone. The evicted members
    // stay (here) past their grace period: cancelled, so Slurm's KillWait still covers them.
    assertEquals(List.of("evict a", "evict c", "cancel " + id), world.actions);
  }

  /**
   * The members evicted for a deleted one are waited for, the job held, and once they are gone the
   * job is released.
   */
  @Test
  void evictedMembersAreWaitedForAndTheJobReleasedOnceTheyAreGone() {
    PodGroupWorkflow wf = runningGroup(TUNING);
    long id = world.onlyJobId();
    delete(wf, member("b", 3));
    await(
        "waiting for a and c to stop",
        5,
        () -> wf.status().timeline().stream().anyMatch(e -> e.event().equals("awaiting-stop")));
    assertEquals(List.of("evict a", "evict c"), world.actions);
    delete(wf, member("a", 3));
    delete(wf, member("c", 3));
    assertEquals(GroupPhase.DONE, result(wf));
    assertEquals(List.of("evict a", "evict c", "release " + id), world.actions);
  }

  /**
   * Every member gone (their signals lost, the re-read finds them): nothing runs on the group's
   * nodes, so its job is released at once rather than held for Slurm's KillWait.
   */
  @Test
  void whenEveryMemberHasStoppedTheJobIsReleasedAtOnce() {
    PodGroupWorkflow wf = runningGroup(TUNING);
    long id = world.onlyJobId();
    List.of("a", "b", "c").forEach(world.pods::remove);
    assertEquals(GroupPhase.DONE, result(wf));
    assertEquals(List.of("release " + id), world.actions);
    assertEquals("COMPLETED", world.jobs.get(id).state());
    assertEquals(
        "released Slurm job(s) [" + id + "] at once: every member had stopped",
        wf.status().timeline().get(wf.status().timeline().size() - 1).detail());
  }

  @Test
  void anEvictionRefusedByABudgetIsRetriedAndShown() {
    PodGroupWorkflow wf = runningGroup(TUNING);
    long id = world.onlyJobId();
    world.refuseEvictions = 3;
    wf.jobObserved(world.setJob(id, "TIMEOUT", "TimeLimit", List.of("n1", "n2", "n3")));
    await(
        "refusal shown",
        10,
        () -> {
          String p = wf.status().problem();
          return p != null && p.startsWith("the eviction of default/a was refused for now");
        });
    assertEquals(GroupPhase.DONE, result(wf));
    assertEquals(3, world.evictions.size());
    assertEquals("Timeout", last("c", ScheduleConditions.SLURM_JOB_ENDED).reason());
    assertTrue(world.cancelled.isEmpty(), "a TIMEOUT job has ended: nothing to cancel");
  }

  @Test
  void preemptionEvictsEveryMember() {
    PodGroupWorkflow wf = runningGroup(TUNING);
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "PREEMPTED", "Preempted by job 7", List.of("n1", "n2")));
    assertEquals(GroupPhase.DONE, result(wf));
    String msg =
        "Slurm preempted job "
            + id
            + " on n1,n2 (state PREEMPTED, reason Preempted by job 7): the pod is"
            + " evicted";
    assertEquals(List.of("a: " + msg, "b: " + msg, "c: " + msg), world.evictions);
    for (String p : List.of("a", "b", "c")) {
      assertEquals("Preempted", last(p, ScheduleConditions.SLURM_PREEMPTED).reason());
    }
    // Each member is told of the preemption, then that no job started on n1,n2 in time.
    List<String> said =
        world.events.stream()
            .filter(e -> e.reason().equals("SlurmPreempted") && e.type().equals("Warning"))
            .map(e -> e.message())
            .toList();
    assertEquals(6, said.size(), said.toString());
    assertEquals(
        3, said.stream().filter(m -> m.startsWith("no other job started on n1,n2")).count());
    assertTrue(world.cancelled.isEmpty(), "a PREEMPTED job has ended: nothing to cancel");
  }

  /**
   * A member evicted for the preempted job is gone before the task that evicted it completes: the
   * retried task sees the member gone and the job preempted at once, and the group still ends as
   * preempted: the members still there keep SlurmPreempted, not GroupMemberEnded.
   */
  @Test
  void aMemberGoneWhileItsEvictionAnswersLeavesThePreemptionTheGroupsEnding() {
    PodGroupWorkflow wf = preemptedWhileAMemberGoes();
    assertEquals(GroupPhase.DONE, result(wf));
    List<String> timeline =
        wf.status().timeline().stream().map(e -> e.event() + ": " + e.detail()).toList();
    assertTrue(timeline.stream().noneMatch(e -> e.startsWith("member-ended")), timeline.toString());
    assertTrue(timeline.stream().anyMatch(e -> e.startsWith("preempted")), timeline.toString());
    for (String p : List.of("b", "c")) {
      assertEquals(null, last(p, ScheduleConditions.SLURM_JOB_ENDED), p);
      assertEquals("Preempted", last(p, ScheduleConditions.SLURM_PREEMPTED).reason(), p);
    }
    assertTrue(
        world.events.stream().noneMatch(e -> e.reason().equals(ScheduleConditions.SLURM_JOB_ENDED)),
        world.events.toString());
  }

  /**
   * Found with {@code tandem dev}: member b deleted; the others, evicted for it, are gone before
   * that task completes, and the retried task sees all three gone. The group's ending still names
   * b, the member that went first, not a, the first by name.
   */
  @Test
  void whenEveryMemberIsGoneTheEndingNamesTheOneThatWentFirst() {
    PodGroupWorkflow wf = bDeletedAndTheOthersGoneAtOnce();
    assertEquals(GroupPhase.DONE, result(wf));
    List<String> ended =
        wf.status().timeline().stream()
            .filter(e -> e.event().equals("member-ended"))
            .map(GroupTimelineEntry::detail)
            .toList();
    assertEquals(1, ended.size(), ended.toString());
    assertTrue(ended.get(0).startsWith("member default/b of group g "), ended.toString());
  }

  /** The timeline begins with the start, then the member whose signal started the group. */
  @Test
  void theTimelineBeginsWithTheStart() {
    PodGroupWorkflow wf = runningGroup(TUNING);
    List<String> first =
        wf.status().timeline().stream().limit(2).map(e -> e.event() + " " + e.detail()).toList();
    assertEquals(List.of("started group default/g", "member default/a uid uid-a"), first);
  }

  @Test
  void aMemberWithAnotherSizeMakesTheGroupInvalidUntilItIsReplaced() {
    join(member("a", 3));
    join(member("b", 3));
    PodGroupWorkflow wf = join(member("c", 4));
    await("invalid", 10, () -> in(wf, GroupPhase.INVALID));
    Condition c = last("c", SCHED);
    assertEquals("InvalidPod", c.reason());
    assertEquals(
        "annotation tandem.dev/group-size is 4 but the other members of group g (a, b) say 3:"
            + " every member must give the same size",
        c.message());
    Condition a = last("a", SCHED);
    assertEquals("GroupInvalid", a.reason());
    assertEquals("group g cannot run: default/c: " + c.message(), a.message());
    assertTrue(world.jobs.isEmpty());
    assertTrue(world.events.stream().anyMatch(e -> e.name().equals("c")));
    // Fixed: the bad pod goes, a good one comes; the group runs.
    delete(wf, member("c", 4));
    join(member("d", 3));
    await("pending", 10, () -> in(wf, GroupPhase.PENDING));
    assertEquals(3, world.submitted.get(0).nodes());
  }

  @Test
  void aGangStillQueuedTellsEveryMemberWhySlurmKeepsItWaitingOnce() {
    PodGroupWorkflow wf = null;
    for (String n : List.of("a", "b", "c")) {
      wf = join(member(n, 3));
    }
    PodGroupWorkflow g = wf;
    await("pending", 10, () -> in(g, GroupPhase.PENDING));
    long id = world.onlyJobId();
    String queued = "Slurm job " + id + " queued for group g (3 nodes)";
    assertEquals(queued, last("a", SCHED).message(), "told at the submit, without a reason");
    // The watcher's signal for a job still waiting after 6 s, with Slurm's reason.
    SlurmJobView waiting = world.setJob(id, "PENDING", "ReqNodeNotAvail", List.of());
    g.jobObserved(waiting);
    for (String n : List.of("a", "b", "c")) {
      await("told " + n, 5, () -> last(n, SCHED).message().endsWith(": ReqNodeNotAvail"));
      Condition c = last(n, SCHED);
      assertEquals("JobPending", c.reason());
      assertEquals(Condition.FALSE, c.status());
      assertEquals(queued + ": ReqNodeNotAvail", c.message());
    }
    int written = world.podConditions.get("a").size();
    g.jobObserved(waiting);
    env.sleep(Duration.ofSeconds(TUNING.resyncSeconds() + 5));
    assertEquals(written, world.podConditions.get("a").size(), "told once: " + world.conditions);
    assertEquals(GroupPhase.PENDING, g.status().phase());
  }

  @Test
  void membersAskingForDifferentResourcesAreInvalid() {
    join(member("a", 2));
    PodGroupWorkflow wf = join(member("b", 2, Map.of("cpu", "2")));
    await("invalid", 10, () -> in(wf, GroupPhase.INVALID));
    String m = last("b", SCHED).message();
    assertTrue(
        m.startsWith(
            "the pod asks for a job of cpus=2 memory=1024MiB partition=batch qos=high"
                + " exclusive=none per node, but the other members of group g (a) ask for cpus=1"
                + " memory=1024MiB"),
        m);
    assertTrue(m.endsWith("same allocation"), m);
    assertTrue(world.jobs.isEmpty());
  }

  @Test
  void tooManyPodsMakeTheGroupInvalidAndExtrasAreToldOnceTheJobExists() {
    join(member("a", 2));
    join(member("b", 2, Map.of("cpu", "x")));
    PodGroupWorkflow wf = join(member("c", 2));
    await("too many", 10, () -> wf.status().invalid().size() == 2);
    assertEquals(GroupPhase.INVALID, wf.status().phase());
    assertEquals(
        "group g has 3 pods but tandem.dev/group-size is 2: delete the extra pod(s) (a, b, c are"
            + " here)",
        wf.status().invalid().get(0));
    assertEquals("GroupInvalid", last("a", SCHED).reason());
    assertEquals("InvalidPod", last("b", SCHED).reason());
    assertTrue(world.jobs.isEmpty());
    delete(wf, member("b", 2));
    await("pending", 10, () -> in(wf, GroupPhase.PENDING));
    join(member("d", 2));
    await("extra told", 10, () -> last("d", SCHED) != null);
    assertEquals(
        "group g already has its 2 members (a, c): this pod is one too many; delete it",
        last("d", SCHED).message());
    assertEquals(GroupPhase.PENDING, wf.status().phase());
  }

  @Test
  void waitingSurvivesContinueAsNewAndLostSignalsOnlyDelay() {
    Tuning small = new Tuning(1, 2, 200, 200, 120, true);
    join(member("a", 2), small);
    PodGroupWorkflow wf = join(member("b", 2), small);
    await("pending", 10, () -> in(wf, GroupPhase.PENDING));
    env.sleep(Duration.ofSeconds(120)); // continues as new on the way
    assertTrue(wf.status().timeline().stream().anyMatch(e -> e.event().equals("continued-as-new")));
    // The pod is deleted but the signal is lost: the timer re-read ends the group.
    world.pods.remove("a");
    assertEquals(GroupPhase.DONE, result(wf));
    assertEquals(List.of(world.onlyJobId()), world.cancelled);
    assertEquals(1, world.evictions.size());
  }

  @Test
  void slurmRefusingTheJobMakesTheGroupInvalidUntilItsMembersChange() {
    world.refuseSubmit = "Invalid partition name specified";
    join(member("a", 2));
    PodGroupWorkflow wf = join(member("b", 2));
    await("invalid", 10, () -> in(wf, GroupPhase.INVALID));
    assertEquals(1, world.submitAttempts, "one submit, not one every poll");
    assertEquals(
        "group g cannot run: Slurm refused the group's placeholder job: Invalid partition name"
            + " specified",
        last("a", SCHED).message());
    assertEquals("GroupInvalid", last("b", SCHED).reason());
    world.refuseSubmit = null;
    delete(wf, member("b", 2));
    join(member("c", 2));
    await("pending", 10, () -> in(wf, GroupPhase.PENDING));
  }

  @Test
  void aGarbageSignalIsRecordedAndChangesNothing() {
    PodGroupWorkflow wf = join(member("a", 2));
    client.newUntypedWorkflowStub(groupId()).signal("memberObserved", "garbage");
    await(
        "recorded",
        10,
        () -> wf.status().timeline().stream().anyMatch(e -> e.event().equals("signal-rejected")));
    assertEquals(1, wf.status().members().size());
    assertEquals(GroupPhase.GATHERING, wf.status().phase());
  }

  @Test
  void aLostSubmitAnswerMakesNoSecondJob() {
    world.loseSubmitAnswers = 2;
    join(member("a", 2));
    PodGroupWorkflow wf = join(member("b", 2));
    await("pending", 20, () -> in(wf, GroupPhase.PENDING));
    assertEquals(1, world.submitted.size());
    assertEquals(world.onlyJobId(), wf.status().jobId());
  }
}
