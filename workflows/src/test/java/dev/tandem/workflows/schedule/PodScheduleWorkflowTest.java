package dev.tandem.workflows.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.model.Tuning;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodScheduleWorkflowTest extends ScheduleTestBase {
  @Test
  void invalidPodGetsConditionAndEventAndNoJob() {
    PodScheduleWorkflow wf =
        schedule(request("bad", Map.of("tandem.dev/exclusive", "all"), 300), TUNING);
    assertEquals(SchedulePhase.INVALID, result(wf));
    String message =
        "terminationGracePeriodSeconds 300 is too long: Slurm kills a preempted job 60 s after"
            + " signalling it (KillWait), so the pod may take at most 55 s (KillWait minus a 5 s"
            + " margin); set terminationGracePeriodSeconds to 55 or less; annotation"
            + " tandem.dev/exclusive \"all\" must be none, user or exclusive";
    Condition c = world.conditions(ScheduleConditions.SLURM_SCHEDULED).get(0);
    assertEquals(Condition.FALSE, c.status());
    assertEquals("InvalidPod", c.reason());
    assertEquals(message, c.message());
    assertEquals(1, world.events.size());
    assertEquals("Warning", world.events.get(0).type());
    assertEquals("InvalidPod", world.events.get(0).reason());
    assertEquals("bad", world.events.get(0).name());
    assertTrue(world.jobs.isEmpty(), "no Slurm job");
    assertEquals(2, wf.status().invalid().size());
  }

  @Test
  void aJobSeenRunningWhileTheSubmitAnswersIsBoundWithoutWaitingForAReRead() {
    world.slurmToK8s.put("n1", "k1");
    PodRequest r = request("fast", Map.of(), 30);
    world.duringSubmit =
        () -> {
          // Slurm starts the job at once; the watcher's signal arrives before the submit's answer
          // (which says PENDING).
          long id = world.jobOf("uid-fast");
          SlurmJobView running = world.jobs.get(id);
          running =
              new SlurmJobView(
                  id, running.name(), running.comment(), "RUNNING", "None", List.of("n1"), 0, null);
          client
              .newUntypedWorkflowStub(PodScheduleWorkflowImpl.workflowId(r))
              .signal("jobObserved", running);
          world.jobs.put(id, world.jobs.get(id)); // the answer stays the PENDING read
        };
    List<String> readsAtBind = new java.util.ArrayList<>();
    world.duringBind = () -> readsAtBind.addAll(world.reads);
    PodScheduleWorkflow wf = schedule(r, TUNING);
    await("running", 3, () -> in(wf, SchedulePhase.RUNNING));
    assertEquals(1, world.binds.size());
    // Bound on the signal, not after a re-read of the job.
    assertTrue(
        readsAtBind.stream().noneMatch(x -> x.startsWith("find")),
        readsAtBind + " " + wf.status().timeline());
  }

  @Test
  void aRunningJobStampedBeforeAnEarlierReadIsStillTakenByProgress() {
    world.slurmToK8s.put("n1", "k1");
    PodScheduleWorkflow wf = schedule("stamped");
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    long id = world.jobOf("uid-stamped");
    java.time.Instant t = java.time.Instant.parse("2026-11-24T03:24:00.500Z");
    SlurmJobView pending = world.jobs.get(id);
    wf.jobObserved(
        new SlurmJobView(
            id, pending.name(), pending.comment(), "PENDING", "Priority", List.of(), 0, t));
    // The watcher stamps its listing when the poll began: earlier than the read above, although
    // it shows the job further along.
    world.setJob(id, "RUNNING", "None", List.of("n1"));
    wf.jobObserved(
        new SlurmJobView(
            id,
            pending.name(),
            pending.comment(),
            "RUNNING",
            "None",
            List.of("n1"),
            0,
            t.minusMillis(100)));
    await("running", 3, () -> in(wf, SchedulePhase.RUNNING));
  }

  @Test
  void aPodDeletedWhileTheBindAnswersGetsItsJobCancelledWithoutAReRead() {
    world.slurmToK8s.put("n1", "k1");
    PodRequest r = request("gone", Map.of(), 30);
    world.duringBind =
        () -> {
          // The pod is deleted right after the binding; the watcher's signal arrives before the
          // bind's answer (which says bound and running).
          world.pods.remove("gone");
          client
              .newUntypedWorkflowStub(PodScheduleWorkflowImpl.workflowId(r))
              .signal("podObserved", PodView.absent("gone"));
        };
    PodScheduleWorkflow wf = schedule(r, TUNING);
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    long id = world.jobOf("uid-gone");
    int readsBefore = world.reads.size();
    wf.jobObserved(world.setJob(id, "RUNNING", "None", List.of("n1")));
    assertEquals(SchedulePhase.DONE, result(wf));
    assertEquals(List.of(id), world.cancelled);
    assertTrue(
        world.reads.subList(readsBefore, world.reads.size()).stream()
            .noneMatch(x -> x.startsWith("read")),
        "cancelled on the signal, not on a re-read: " + world.reads);
  }

  /**
   * Found with {@code tandem dev}: a pod evicted for its preempted job, with a short grace period,
   * was gone before the task that evicted it completed. The server refused that task's completion
   * (a signal had arrived), and the retried task saw the job preempted and the pod gone at once:
   * its history said "pod-ended: pod deleted", as if a user had deleted it. It now names the
   * preemption.
   */
  @Test
  void aPodGoneWhileItsEvictionAnswersKeepsThePreemptionInItsHistory() {
    PodScheduleWorkflow wf = preemptedWhileThePodGoes("race");
    long id = world.jobOf("uid-race");
    assertEquals(SchedulePhase.DONE, result(wf));
    List<String> timeline =
        wf.status().timeline().stream().map(e -> e.event() + ": " + e.detail()).toList();
    assertTrue(
        timeline.stream().anyMatch(e -> e.startsWith("preempted: Slurm preempted job " + id)),
        timeline.toString());
    assertTrue(timeline.stream().noneMatch(e -> e.startsWith("pod-ended")), timeline.toString());
    assertEquals(1, world.evictions.size(), world.evictions.toString());
    // The watcher's signal landed on a task that did not complete the run (the run waits for the
    // watcher's word of an end it learned first): nothing was refused.
    assertEquals(0, refusedTasks("race"), history("race").toString());
  }

  @Test
  void aPodItsOwnEvictionRemovedWaitsForTheWatchersWordBeforeItCompletes() {
    world.slurmToK8s.put("n1", "k1");
    Tuning slowPoll = new Tuning(20, 30, 4000, 200, 120, true);
    PodScheduleWorkflow wf = schedule(request("word", Map.of(), 30), slowPoll);
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "RUNNING", "None", List.of("n1")));
    await("running", 5, () -> in(wf, SchedulePhase.RUNNING));
    wf.jobObserved(world.setJob(id, "PREEMPTED", "None", List.of("n1")));
    // Evicted at once; DONE once the search for the preempting job has given up (no job starts).
    await("evicted", 120, () -> world.evictions.size() == 1 && in(wf, SchedulePhase.DONE));
    // The eviction's answer showed the pod going; the run waits for the watcher to say so.
    assertTrue(
        history("word").stream()
            .noneMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED),
        "not completed before the watcher's word");
    world.pods.remove("word");
    wf.podObserved(PodView.absent("word"));
    assertEquals(SchedulePhase.DONE, result(wf));
    assertEquals(0, refusedTasks("word"));
  }

  private long refusedTasks(String name) {
    return history(name).stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)
        .count();
  }

  @Test
  void aGangMemberStartedByHandIsNotScheduledAsOnePodAndIsToldItsGroupsWorkflow() {
    PodScheduleWorkflow wf =
        schedule(
            request("g", Map.of("tandem.dev/pod-group", "g", "tandem.dev/group-size", "3"), 30),
            TUNING);
    assertEquals(SchedulePhase.INVALID, result(wf));
    assertTrue(world.jobs.isEmpty());
    assertEquals(
        List.of(
            "pod group g (tandem.dev/group-size 3) is scheduled as one gang by workflow "
                + Names.podGroupWorkflowId("default", "g")
                + ", never pod by pod; this workflow was not started by Tandem's pod watcher:"
                + " terminate it and let the watcher start the gang's"),
        wf.status().invalid());
    Condition c = world.conditions(ScheduleConditions.SLURM_SCHEDULED).get(0);
    assertEquals(ScheduleConditions.INVALID_POD, c.reason());
    assertEquals(wf.status().invalid().get(0), c.message());
  }

  @Test
  void slurmRefusingTheJobMakesThePodInvalid() {
    // Refused as the real activities refuse: with the Slurm client's exception as the cause.
    world.refuseSubmit = "Invalid partition name specified";
    PodScheduleWorkflow wf = schedule("refused");
    await("invalid", 10, () -> in(wf, SchedulePhase.INVALID));
    assertEquals(SchedulePhase.INVALID, result(wf));
    assertEquals(1, world.submitAttempts, "one submit, not one every poll");
    assertEquals(
        "Slurm refused the placeholder job: Invalid partition name specified",
        world.conditions(ScheduleConditions.SLURM_SCHEDULED).get(0).message());
  }

  @Test
  void bindsWhereTheJobRunsThenReleasesTheJobWhenThePodIsGone() {
    PodScheduleWorkflow wf = running("web");
    long id = world.onlyJobId();
    PlaceholderJob job = world.submitted.get(0);
    assertEquals("tandem-pod-uid-web", job.name());
    assertEquals("tandem.dev/pod-uid=uid-web pod=default/web", job.comment());
    assertEquals("high", job.qos());
    assertEquals(
        List.of(new BindRequest("default", "web", "uid-web", "k1", id, "n1")), world.binds);
    // Slurm started the job at once: the pod never heard it was queued.
    List<Condition> sched = world.conditions(ScheduleConditions.SLURM_SCHEDULED);
    assertEquals(1, sched.size(), sched.toString());
    assertEquals(Condition.TRUE, sched.get(0).status());
    assertEquals("JobRunning", sched.get(0).reason());
    PodScheduleStatus s = wf.status();
    assertEquals(id, s.jobId());
    assertEquals("n1", s.slurmNode());
    assertEquals("k1", s.k8sNode());

    world.pods.remove("web");
    wf.podObserved(PodView.absent("web"));
    assertEquals(SchedulePhase.DONE, result(wf));
    // Gone: nothing runs on the node any more, so the job is released (no KillWait).
    assertEquals(List.of("release " + id), world.actions);
    assertTrue(world.evictions.isEmpty());
  }

  @Test
  void aJobStillQueuedIsToldOnThePodWhenTheWatcherSaysItStillWaits() {
    world.slurmToK8s.put("n1", "k1");
    PodScheduleWorkflow wf = schedule("queued");
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    long id = world.jobOf("uid-queued");
    SlurmJobView waiting = world.setJob(id, "PENDING", "Resources", List.of());
    // No timer of its own fires at the notice delay: the watcher's signal brings it.
    env.sleep(Duration.ofSeconds(SchedulePhases.QUEUED_NOTICE_SECONDS + 2));
    assertTrue(
        world.conditions(ScheduleConditions.SLURM_SCHEDULED).isEmpty(),
        "not without the watcher's word: " + world.conditions);
    int readsBefore = world.reads.size();
    wf.jobObserved(waiting); // the watcher's signal for a job still waiting after 6 s
    await(
        "the queued notice",
        2,
        () -> !world.conditions(ScheduleConditions.SLURM_SCHEDULED).isEmpty());
    Condition queued = world.conditions(ScheduleConditions.SLURM_SCHEDULED).get(0);
    assertEquals(Condition.FALSE, queued.status());
    assertEquals("JobPending", queued.reason());
    assertEquals("Slurm job " + id + " queued (Resources)", queued.message());
    assertEquals(
        List.of(),
        world.reads.subList(readsBefore, world.reads.size()),
        "the signal's view is fresh: no re-read");
    wf.jobObserved(waiting);
    env.sleep(Duration.ofSeconds(30));
    assertEquals(1, world.conditions(ScheduleConditions.SLURM_SCHEDULED).size(), "told once");

    wf.jobObserved(world.setJob(id, "RUNNING", "None", List.of("n1")));
    await("running", 5, () -> in(wf, SchedulePhase.RUNNING));
    List<Condition> sched = world.conditions(ScheduleConditions.SLURM_SCHEDULED);
    assertEquals("JobRunning", sched.get(sched.size() - 1).reason());
  }

  @Test
  void aJobReportedStillWaitingBeforeTheNoticeIsDueIsNotShownQueuedYet() {
    PodScheduleWorkflow wf = schedule("early");
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    long id = world.jobOf("uid-early");
    // Slurm gave a reason at once (a change the watcher sends), long before the notice is due.
    wf.jobObserved(world.setJob(id, "PENDING", "Priority", List.of()));
    env.sleep(Duration.ofSeconds(2));
    assertTrue(world.conditions(ScheduleConditions.SLURM_SCHEDULED).isEmpty(), "not yet");
  }

  @Test
  void aJobStillQueuedWithoutTheWatchersWordIsToldOnTheResyncPassAfterAReRead() {
    PodScheduleWorkflow wf = schedule("unheard");
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    long id = world.jobOf("uid-unheard");
    world.setJob(id, "PENDING", "Resources", List.of());
    int readsBefore = world.reads.size();
    await(
        "the queued notice on the resync pass",
        TUNING.resyncSeconds() + 2,
        () -> !world.conditions(ScheduleConditions.SLURM_SCHEDULED).isEmpty());
    assertEquals(
        "Slurm job " + id + " queued (Resources)",
        world.conditions(ScheduleConditions.SLURM_SCHEDULED).get(0).message());
    assertTrue(
        world.reads.subList(readsBefore, world.reads.size()).contains("find uid-unheard"),
        "the job was re-read before the notice: " + world.reads);
  }

  @Test
  void aJobStartedWhoseSignalWasLostIsBoundOnTheResyncPassAndNeverShownQueued() {
    world.slurmToK8s.put("n1", "k1");
    PodScheduleWorkflow wf = schedule("late");
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    long id = world.jobOf("uid-late");
    // Slurm starts it, but the watcher's signal is lost: the resync's re-read finds it running.
    world.setJob(id, "RUNNING", "None", List.of("n1"));
    await("running", TUNING.resyncSeconds() + 2, () -> in(wf, SchedulePhase.RUNNING));
    List<Condition> sched = world.conditions(ScheduleConditions.SLURM_SCHEDULED);
    assertEquals(1, sched.size(), sched.toString());
    assertEquals("JobRunning", sched.get(0).reason());
  }

  @Test
  void aJobSlurmStartsAtOnceLeavesNoTimerDueWhileItsPodCouldEnd() {
    PodScheduleWorkflow wf = running("brief");
    world.pods.remove("brief");
    wf.podObserved(PodView.absent("brief"));
    assertEquals(SchedulePhase.DONE, result(wf));
    // A timer for the notice would fire into the pod's last task when the pod ended about then
    // (UnhandledCommand, a replay).
    List<Long> timers =
        client
            .fetchHistory(PodScheduleWorkflowImpl.workflowId(request("brief", Map.of(), 30)))
            .getEvents()
            .stream()
            .filter(HistoryEvent::hasTimerStartedEventAttributes)
            .map(e -> e.getTimerStartedEventAttributes().getStartToFireTimeout().getSeconds())
            .toList();
    assertFalse(timers.isEmpty());
    assertTrue(
        timers.stream().allMatch(t -> t >= TUNING.resyncSeconds()),
        "every wait is a resync: " + timers);
  }

  @Test
  void preemptionEvictsThePodWithConditionAndEvent() {
    PodScheduleWorkflow wf = running("p");
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "PREEMPTED", "Preempted by job 7", List.of("n1")));
    assertEquals(SchedulePhase.DONE, result(wf));
    String message =
        "Slurm preempted job "
            + id
            + " on n1 (state PREEMPTED, reason Preempted by job 7): the pod is evicted";
    Condition c = world.conditions(ScheduleConditions.SLURM_PREEMPTED).get(0);
    assertEquals(Condition.TRUE, c.status());
    assertEquals("Preempted", c.reason());
    assertEquals(message, c.message());
    assertEquals(List.of("p: " + message), world.evictions);
    assertTrue(
        world.events.stream()
            .anyMatch(e -> e.reason().equals("SlurmPreempted") && e.type().equals("Warning")));
    assertTrue(world.cancelled.isEmpty(), "a PREEMPTED job has ended: nothing to cancel");
  }

  /**
   * Slurm 22.05 says reason {@code None} and names no preemptor: the condition names the node, and
   * once a job starts there after the preemption (Slurm starts it when the placeholder is gone) a
   * second event names it, its partition and its QOS. The workflow asks twice: right after the
   * eviction (not running yet here) and once more when the preemptor must have started.
   */
  @Test
  void aPreemptionNamesTheNodeAndThePreemptingJobOnceItRuns() {
    world.preemptor =
        new dev.tandem.workflows.schedule.Preemptor(0, List.of(), null, 57, "high", "normal", null);
    world.preemptorAfter = 1;
    PodScheduleWorkflow wf = running("p");
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "PREEMPTED", "None", List.of("n1")));
    assertEquals(SchedulePhase.DONE, result(wf));
    String announced = world.conditions(ScheduleConditions.SLURM_PREEMPTED).get(0).message();
    assertEquals(
        "Slurm preempted job " + id + " on n1 (state PREEMPTED): the pod is evicted", announced);
    assertEquals(2, world.preemptorLookups.size(), world.preemptorLookups.toString());
    assertEquals(id + " on [n1]", world.preemptorLookups.get(0));
    List<String> said = preemptionEvents();
    assertEquals(2, said.size(), said.toString());
    assertEquals(announced, said.get(0));
    assertEquals(
        "Slurm job 57 (partition high, QOS normal) started on n1 at 2024-05-01T10:00:00Z: it"
            + " preempted job "
            + id
            + " at 2024-05-01T10:00:00Z",
        said.get(1));
    assertTrue(said.stream().noneMatch(m -> m.contains("None")), said.toString());
  }

  /** No job starts on the node in time: the pod is told what is known, once. */
  @Test
  void aPreemptorThatNeverStartsIsSaidOnceWithWhatIsKnown() {
    PodScheduleWorkflow wf = running("p");
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "PREEMPTED", "None", List.of("n1")));
    assertEquals(SchedulePhase.DONE, result(wf));
    List<String> said = preemptionEvents();
    assertEquals(2, said.size(), said.toString());
    assertTrue(
        said.get(1).startsWith("no other job started on n1 within ")
            && said.get(1)
                .endsWith(
                    " s of job "
                        + id
                        + "'s preemption at 2024-05-01T10:00:00Z: Slurm does not name"
                        + " the preempting job"),
        said.get(1));
    assertTrue(world.preemptorLookups.size() >= 2, world.preemptorLookups.toString());
  }

  private List<String> preemptionEvents() {
    return world.events.stream()
        .filter(e -> e.reason().equals(ScheduleConditions.SLURM_PREEMPTED))
        .map(e -> e.message())
        .toList();
  }

  @Test
  void aRequeuedPlaceholderIsPreemptionAndIsCancelledSoItNeverRunsAlone() {
    PodScheduleWorkflow wf = running("rq");
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "PENDING", "BeginTime", List.of()));
    assertEquals(SchedulePhase.DONE, result(wf));
    assertEquals("Requeued", world.conditions(ScheduleConditions.SLURM_PREEMPTED).get(0).reason());
    assertEquals(1, world.evictions.size());
    assertEquals(List.of(id), world.cancelled);
  }

  @Test
  void aTimedOutJobEvictsWithJobEnded() {
    PodScheduleWorkflow wf = running("t");
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "TIMEOUT", "TimeLimit", List.of("n1")));
    assertEquals(SchedulePhase.DONE, result(wf));
    Condition c = world.conditions(ScheduleConditions.SLURM_JOB_ENDED).get(0);
    assertEquals("Timeout", c.reason());
    assertEquals(
        "Slurm job " + id + " on n1 ended (state TIMEOUT, reason TimeLimit): the pod is evicted",
        c.message());
    assertTrue(world.conditions(ScheduleConditions.SLURM_PREEMPTED).isEmpty());
  }

  @Test
  void aJobCancelledWhilePendingRemovesTheUnboundPod() {
    PodScheduleWorkflow wf = schedule("pc");
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "CANCELLED", "None", List.of()));
    assertEquals(SchedulePhase.DONE, result(wf));
    assertEquals("Cancelled", world.conditions(ScheduleConditions.SLURM_JOB_ENDED).get(0).reason());
    assertEquals(1, world.evictions.size());
    assertTrue(world.binds.isEmpty());
  }

  @Test
  void aCompletedPodReleasesItsJobAtOnce() {
    PodScheduleWorkflow wf = running("c");
    long id = world.onlyJobId();
    PodView done = FakeScheduling.pod("c", "uid-c", "Succeeded", "k1", false);
    world.pods.put("c", done);
    wf.podObserved(done);
    assertEquals(SchedulePhase.DONE, result(wf));
    assertEquals(List.of(id), world.released);
    assertEquals("COMPLETED", world.jobs.get(id).state());
    assertTrue(world.evictions.isEmpty());
    assertEquals(
        "released Slurm job(s) [" + id + "] at once: the pod had stopped",
        wf.status().timeline().get(wf.status().timeline().size() - 1).detail());
  }

  /**
   * A pod being deleted may run until its grace period ends: its job is held (neither cancelled nor
   * released) until the pod is gone, then released.
   */
  @Test
  void aPodBeingDeletedIsWaitedForAndItsJobReleasedOnceItIsGone() {
    PodScheduleWorkflow wf = running("t");
    long id = world.onlyJobId();
    PodView stopping = FakeScheduling.pod("t", "uid-t", "Running", "k1", true);
    world.pods.put("t", stopping);
    wf.podObserved(stopping);
    await("waiting for the pod to stop", 5, () -> hasEvent(wf, "awaiting-stop"));
    assertTrue(world.actions.isEmpty(), "held while the pod may still run: " + world.actions);
    world.pods.remove("t");
    wf.podObserved(PodView.absent("t"));
    assertEquals(SchedulePhase.DONE, result(wf));
    assertEquals(List.of("release " + id), world.actions);
  }

  /**
   * A pod still there when its grace period and the margin have passed (a kubelet that is gone, a
   * longer grace given to the delete) has its job cancelled: KillWait keeps covering it.
   */
  @Test
  void aPodThatOutlivesItsGracePeriodHasItsJobCancelled() {
    PodScheduleWorkflow wf = running("t");
    long id = world.onlyJobId();
    PodView stopping = FakeScheduling.pod("t", "uid-t", "Running", "k1", true);
    world.pods.put("t", stopping);
    wf.podObserved(stopping);
    assertEquals(SchedulePhase.DONE, result(wf));
    assertEquals(List.of("cancel " + id), world.actions);
    assertTrue(world.released.isEmpty());
    assertEquals(
        "cancelled Slurm job(s) [" + id + "]",
        wf.status().timeline().get(wf.status().timeline().size() - 1).detail());
  }

  private static boolean hasEvent(PodScheduleWorkflow wf, String event) {
    return wf.status().timeline().stream().anyMatch(e -> e.event().equals(event));
  }

  @Test
  void lostSignalsOnlyDelay() {
    world.slurmToK8s.put("n2", "k2");
    PodScheduleWorkflow wf = schedule("quiet");
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    world.setJob(world.onlyJobId(), "RUNNING", null, List.of("n2")); // no signal
    await("running after a resync", 30, () -> in(wf, SchedulePhase.RUNNING));
    assertEquals("k2", world.pods.get("quiet").k8sNode());
    world.pods.remove("quiet"); // no signal either
    assertEquals(SchedulePhase.DONE, result(wf));
    assertEquals(1, world.cancelled.size());
  }

  @Test
  void anUnknownSlurmNodeIsNeverGuessed() {
    PodScheduleWorkflow wf = schedule("nomap");
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    wf.jobObserved(world.setJob(world.onlyJobId(), "RUNNING", null, List.of("n9")));
    await("binding", 10, () -> in(wf, SchedulePhase.BINDING));
    env.sleep(Duration.ofSeconds(20));
    PodScheduleStatus s = wf.status();
    assertEquals(SchedulePhase.BINDING, s.phase());
    assertEquals("Slurm node n9 has no running slurmd pod on a Kubernetes node", s.problem());
    assertTrue(world.binds.isEmpty());
    world.slurmToK8s.put("n9", "k9");
    await("running once the mapping is known", 10, () -> in(wf, SchedulePhase.RUNNING));
    assertNull(wf.status().problem());
  }

  @Test
  void anUnknownJobStateChangesNothing() {
    PodScheduleWorkflow wf = running("odd");
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "RESIZING", null, List.of("n1")));
    env.sleep(Duration.ofSeconds(30));
    PodScheduleStatus s = wf.status();
    assertEquals(SchedulePhase.RUNNING, s.phase());
    assertEquals("Slurm job " + id + " is in state RESIZING, unknown to Tandem", s.problem());
    assertTrue(world.evictions.isEmpty());
    assertTrue(world.cancelled.isEmpty());
  }

  @Test
  void aJobWhoseSubmitAnswerWasLostIsCancelledWhenThePodGoes() {
    world.loseSubmitAnswer = true;
    PodScheduleWorkflow wf = schedule("lost");
    await("job exists", 10, () -> world.jobs.size() == 1);
    await("problem", 10, () -> wf.status().problem() != null);
    assertEquals(SchedulePhase.SUBMITTING, wf.status().phase());
    assertEquals(0, wf.status().jobId());
    world.pods.remove("lost");
    wf.podObserved(PodView.absent("lost"));
    assertEquals(SchedulePhase.DONE, result(wf));
    assertEquals(List.of(world.onlyJobId()), world.cancelled);
    assertEquals(1, world.submitted.size(), "submit never made a second job");
  }

  @Test
  void aSubmitWhoseAnswerWasLostIsRetriedIntoTheSameJob() {
    world.loseSubmitAnswers = 2;
    world.slurmToK8s.put("n1", "k1");
    PodScheduleWorkflow wf = schedule("retry");
    await("pending", 30, () -> in(wf, SchedulePhase.PENDING));
    assertEquals(1, world.jobs.size(), "exactly one job");
    assertEquals(world.onlyJobId(), wf.status().jobId());
    wf.jobObserved(world.setJob(world.onlyJobId(), "RUNNING", null, List.of("n1")));
    await("running", 5, () -> in(wf, SchedulePhase.RUNNING));
    assertEquals(1, world.binds.size(), "bound once");
  }

  @Test
  void aPodDeletedWhileItsNodeIsUnknownCancelsTheJob() {
    PodScheduleWorkflow wf = schedule("unbound");
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "RUNNING", null, List.of("n7")));
    await("binding", 5, () -> in(wf, SchedulePhase.BINDING));
    world.pods.remove("unbound");
    wf.podObserved(PodView.absent("unbound"));
    assertEquals(SchedulePhase.DONE, result(wf));
    assertEquals(List.of(id), world.cancelled);
    assertTrue(world.binds.isEmpty());
  }

  @Test
  void aRefusedEvictionIsRetriedAndSaidSo() {
    PodScheduleWorkflow wf = running("pdb");
    world.refuseEvictions = 3;
    wf.jobObserved(world.setJob(world.onlyJobId(), "PREEMPTED", null, List.of("n1")));
    await("eviction refused", 5, () -> wf.status().problem() != null);
    assertEquals(SchedulePhase.EVICTING, wf.status().phase());
    assertEquals(
        "the pod's eviction was refused for now (e.g. a PodDisruptionBudget); retrying",
        wf.status().problem());
    assertTrue(world.evictions.isEmpty());
    assertEquals(SchedulePhase.DONE, result(wf));
    assertEquals(1, world.evictions.size());
    assertEquals(
        1,
        world.conditions(ScheduleConditions.SLURM_PREEMPTED).size(),
        "announced once, not on every retry");
  }

  @Test
  void aPodRecreatedUnderTheSameNameCountsAsGone() {
    PodScheduleWorkflow wf = running("same");
    PodView other = FakeScheduling.pod("same", "another-uid", "Pending", null, false);
    world.pods.put("same", other);
    wf.podObserved(other);
    // Within the running phase's resync (10 s): the signal alone, not a timer re-read, decides.
    await("cancelled on the signal", 5, () -> world.cancelled.size() == 1);
    assertEquals(SchedulePhase.DONE, result(wf));
  }

  @Test
  void signalsAboutOtherJobsAreIgnored() {
    PodScheduleWorkflow wf = running("ign");
    wf.jobObserved(new SlurmJobView(999, "x", "y", "CANCELLED", null, List.of(), 0, null));
    env.sleep(Duration.ofSeconds(5));
    assertEquals(SchedulePhase.RUNNING, wf.status().phase());
    assertTrue(world.evictions.isEmpty());
  }

  @Test
  void garbageSignalsAreRecordedAndChangeNothing() {
    PodScheduleWorkflow wf = running("junk");
    var raw =
        client.newUntypedWorkflowStub(
            PodScheduleWorkflowImpl.workflowId(request("junk", Map.of(), 30)));
    raw.signal(Names.SIGNAL_JOB_OBSERVED, "garbage");
    raw.signal(Names.SIGNAL_POD_OBSERVED, Map.of("name", "junk", "exists", "maybe"));
    env.sleep(Duration.ofSeconds(5));
    PodScheduleStatus s = wf.status();
    assertEquals(SchedulePhase.RUNNING, s.phase());
    List<String> rejected =
        s.timeline().stream()
            .filter(e -> e.event().equals("signal-rejected"))
            .map(ScheduleTimelineEntry::detail)
            .toList();
    assertEquals(2, rejected.size(), rejected.toString());
    assertTrue(
        rejected.get(0).startsWith("jobObserved: payload must be a JSON object"), rejected.get(0));
    assertTrue(rejected.get(1).startsWith("podObserved: "), rejected.get(1));
    assertTrue(world.evictions.isEmpty());
    assertTrue(world.cancelled.isEmpty());
  }

  @Test
  void continuesAsNewWhileRunningAndKeepsItsMemory() {
    world.slurmToK8s.put("n1", "k1");
    Tuning small = new Tuning(1, 2, 200, 200, 120, true);
    PodScheduleWorkflow wf = schedule(request("long", new HashMap<>(), 30), small);
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    long id = world.onlyJobId();
    wf.jobObserved(world.setJob(id, "RUNNING", null, List.of("n1")));
    await("running", 10, () -> in(wf, SchedulePhase.RUNNING));
    await(
        "continued as new",
        600,
        () -> wf.status().timeline().stream().anyMatch(e -> e.event().equals("continued-as-new")));
    PodScheduleStatus s = wf.status();
    assertEquals(SchedulePhase.RUNNING, s.phase());
    assertEquals(id, s.jobId());
    assertEquals("k1", s.k8sNode());
    assertEquals(1, world.binds.size(), "bound once");
    wf.jobObserved(world.setJob(id, "PREEMPTED", null, List.of("n1")));
    assertEquals(SchedulePhase.DONE, result(wf));
    assertFalse(world.evictions.isEmpty());
  }
}
