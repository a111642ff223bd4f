package dev.tandem.workflows.replay;

import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.schedule.FakeScheduling;
import dev.tandem.workflows.schedule.PodRequest;
import dev.tandem.workflows.schedule.PodScheduleWorkflow;
import dev.tandem.workflows.schedule.PodScheduleWorkflowImpl;
import dev.tandem.workflows.schedule.SchedulePhase;
import dev.tandem.workflows.schedule.ScheduleTestBase;
import dev.tandem.workflows.testing.Histories;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Records the pod scheduling workflow's histories that {@link ReplayTest} replays; runs only on
 * request, like {@link RecordHistoriesTest}:
 *
 * <pre>./mvnw -pl workflows test -Dtest=RecordScheduleHistoriesTest -Dtandem.recordHistories=v1
 * </pre>
 */
class RecordScheduleHistoriesTest extends ScheduleTestBase {

  @Test
  void recordSchedule() {
    Histories.assumeRecording();
    // bound, then the pod is deleted
    PodScheduleWorkflow bound = running("rec-bound");
    world.pods.remove("rec-bound");
    bound.podObserved(PodView.absent("rec-bound"));
    result(bound);
    write("schedule-bound", request("rec-bound", Map.of(), 30));
    // preempted (requeued) and evicted, with a garbage signal on the way
    PodScheduleWorkflow pre = running("rec-pre");
    client
        .newUntypedWorkflowStub(
            PodScheduleWorkflowImpl.workflowId(request("rec-pre", Map.of(), 30)))
        .signal("jobObserved", "garbage");
    long id = world.jobOf("uid-rec-pre");
    pre.jobObserved(world.setJob(id, "PENDING", "BeginTime", List.of()));
    result(pre);
    write("schedule-preempted", request("rec-pre", Map.of(), 30));
    // invalid
    PodScheduleWorkflow bad =
        schedule(request("rec-bad", Map.of("tandem.dev/qos", "a b"), 30), TUNING);
    result(bad);
    write("schedule-invalid", request("rec-bad", Map.of("tandem.dev/qos", "a b"), 30));
    // a long wait in Slurm's queue with timer re-reads, continuing as new
    PodScheduleWorkflow wait =
        schedule(request("rec-wait", Map.of(), 30), new Tuning(1, 2, 200, 200, 120, true));
    await("pending", 10, () -> in(wait, SchedulePhase.PENDING));
    env.sleep(java.time.Duration.ofSeconds(60));
    world.pods.remove("rec-wait");
    result(wait);
    write("schedule-wait", request("rec-wait", Map.of(), 30));
  }

  /**
   * The races found by {@code tandem bench scheduling}, recorded with the forward-only views: a job
   * seen running while the submit answers, a pod deleted while the bind answers, and a running job
   * stamped before an earlier read. Recorded before the first release of the workflow, so later
   * changes to these paths fail {@link ReplayTest} unless guarded:
   *
   * <pre>./mvnw -pl workflows test -Dtest=RecordScheduleHistoriesTest#recordRaces
   *     -Dtandem.recordHistories=v1</pre>
   */
  @Test
  void recordRaces() {
    Histories.assumeRecording();
    world.slurmToK8s.put("n1", "k1");
    // the watcher's RUNNING arrives while the submit answers PENDING
    PodRequest early = request("rec-early", Map.of(), 30);
    world.duringSubmit =
        () -> {
          long id = world.jobOf("uid-rec-early");
          SlurmJobView j = world.jobs.get(id);
          client
              .newUntypedWorkflowStub(PodScheduleWorkflowImpl.workflowId(early))
              .signal(
                  "jobObserved",
                  new SlurmJobView(
                      id, j.name(), j.comment(), "RUNNING", "None", List.of("n1"), 0, null));
        };
    PodScheduleWorkflow e = schedule(early, TUNING);
    await("running", 5, () -> in(e, SchedulePhase.RUNNING));
    world.pods.remove("rec-early");
    e.podObserved(PodView.absent("rec-early"));
    result(e);
    write("schedule-early-running", early);
    // the pod is deleted while the bind answers "bound"
    PodRequest gone = request("rec-gone", Map.of(), 30);
    world.duringBind =
        () -> {
          world.pods.remove("rec-gone");
          client
              .newUntypedWorkflowStub(PodScheduleWorkflowImpl.workflowId(gone))
              .signal("podObserved", PodView.absent("rec-gone"));
        };
    PodScheduleWorkflow g = schedule(gone, TUNING);
    await("pending", 10, () -> in(g, SchedulePhase.PENDING));
    long gid = world.jobOf("uid-rec-gone");
    g.jobObserved(world.setJob(gid, "RUNNING", "None", List.of("n1")));
    result(g);
    write("schedule-deleted-during-bind", gone);
    // a RUNNING view stamped before the PENDING one held
    PodRequest stamped = request("rec-stamped", Map.of(), 30);
    PodScheduleWorkflow st = schedule(stamped, TUNING);
    await("pending", 10, () -> in(st, SchedulePhase.PENDING));
    long sid = world.jobOf("uid-rec-stamped");
    SlurmJobView held = world.jobs.get(sid);
    Instant t = Instant.parse("2026-11-24T03:24:00.500Z");
    st.jobObserved(
        new SlurmJobView(sid, held.name(), held.comment(), "PENDING", "Priority", List.of(), 0, t));
    world.setJob(sid, "RUNNING", "None", List.of("n1"));
    st.jobObserved(
        new SlurmJobView(
            sid,
            held.name(),
            held.comment(),
            "RUNNING",
            "None",
            List.of("n1"),
            0,
            t.minusMillis(100)));
    await("running", 5, () -> in(st, SchedulePhase.RUNNING));
    world.pods.remove("rec-stamped");
    st.podObserved(PodView.absent("rec-stamped"));
    result(st);
    write("schedule-stamped-running", stamped);
  }

  /**
   * A second job with the pod's tag seen while the pod runs (a submit repeated after a crash),
   * cancelled on sight ({@code Versions.SOLE_SUBMIT}; recorded from v3 on):
   *
   * <pre>./mvnw -pl workflows test -Dtest=RecordScheduleHistoriesTest#recordStray
   *     -Dtandem.recordHistories=v3</pre>
   */
  @Test
  void recordStray() {
    Histories.assumeRecording();
    PodScheduleWorkflow wf = running("rec-stray");
    PodRequest r = request("rec-stray", Map.of(), 30);
    SlurmJobView second = FakeScheduling.queued(world.onlyJobId() + 50, r.uid());
    world.jobs.put(second.id(), second);
    wf.jobObserved(second);
    await("stray cancelled", 5, () -> world.cancelled.contains(second.id()));
    world.pods.remove("rec-stray");
    wf.podObserved(PodView.absent("rec-stray"));
    result(wf);
    write("schedule-stray", r);
  }

  /**
   * A pod gone while its eviction for a preempted job answers ({@code Versions.JOB_ENDING_FIRST};
   * recorded from v23 on): the evicting task's completion is refused and its retry sees both.
   *
   * <pre>./mvnw -pl workflows test -Dtest=RecordScheduleHistoriesTest#recordEvictionRace
   *     -Dtandem.recordHistories=v23</pre>
   */
  @Test
  void recordEvictionRace() {
    Histories.assumeRecording();
    PodScheduleWorkflow wf = preemptedWhileThePodGoes("rec-race");
    result(wf);
    write("schedule-eviction-race", request("rec-race", Map.of(), 30));
  }

  /**
   * Pods being deleted: one waited for until it is gone, then its job released; one that outlives
   * its grace period and the margin, then its job cancelled ({@code Versions.RELEASE_STOPPED} 2;
   * recorded from v26 on).
   */
  @Test
  void recordStopping() {
    Histories.assumeRecording();
    PodScheduleWorkflow gone = running("rec-stop");
    PodView stopping = FakeScheduling.pod("rec-stop", "uid-rec-stop", "Running", "k1", true);
    world.pods.put("rec-stop", stopping);
    gone.podObserved(stopping);
    await(
        "waiting for the pod to stop",
        5,
        () -> gone.status().timeline().stream().anyMatch(e -> e.event().equals("awaiting-stop")));
    world.pods.remove("rec-stop");
    gone.podObserved(PodView.absent("rec-stop"));
    result(gone);
    write("schedule-stopping", request("rec-stop", Map.of(), 30));
    PodScheduleWorkflow stuck = running("rec-stuck");
    PodView still = FakeScheduling.pod("rec-stuck", "uid-rec-stuck", "Running", "k1", true);
    world.pods.put("rec-stuck", still);
    stuck.podObserved(still);
    result(stuck);
    write("schedule-stuck-stopping", request("rec-stuck", Map.of(), 30));
  }

  /**
   * A job still queued when the watcher signals it once more, so its pod is told; then Slurm starts
   * it and the pod is deleted ({@code Versions.SIGNALLED_NOTICE}; recorded from v28 on).
   */
  @Test
  void recordSignalledNotice() {
    Histories.assumeRecording();
    world.slurmToK8s.put("n1", "k1");
    PodRequest r = request("rec-queued", Map.of(), 30);
    PodScheduleWorkflow wf = schedule(r, TUNING);
    await("pending", 10, () -> in(wf, SchedulePhase.PENDING));
    long id = world.jobOf(r.uid());
    env.sleep(java.time.Duration.ofSeconds(6));
    wf.jobObserved(world.setJob(id, "PENDING", "Resources", List.of()));
    await("told queued", 3, () -> !world.conditions.isEmpty());
    wf.jobObserved(world.setJob(id, "RUNNING", "None", List.of("n1")));
    await("running", 5, () -> in(wf, SchedulePhase.RUNNING));
    world.pods.remove(r.name());
    wf.podObserved(PodView.absent(r.name()));
    result(wf);
    write("schedule-queued-signalled", r);
  }

  /**
   * A preempted pod its own eviction removed: the run waits for the watcher's signal of that before
   * it completes ({@code Versions.HEAR_THE_END}; recorded from v29 on).
   */
  @Test
  void recordHeardEnd() {
    Histories.assumeRecording();
    PodScheduleWorkflow wf = running("rec-heard");
    wf.jobObserved(world.setJob(world.onlyJobId(), "PREEMPTED", "None", List.of("n1")));
    await("evicted", 2, () -> world.evictions.size() == 1);
    world.pods.remove("rec-heard");
    wf.podObserved(PodView.absent("rec-heard"));
    result(wf);
    write("schedule-evicted-heard", request("rec-heard", Map.of(), 30));
  }

  /**
   * Slurm refuses the placeholder for good, reported as the real activities report it (a refusal
   * with the Slurm client's exception as its cause). Recorded before {@code
   * Versions.REFUSAL_WITH_CAUSE} (v29 tag: the run retried the submit every poll until its pod was
   * deleted) and after it (v30: the pod is invalid at once).
   */
  @Test
  void recordRefusedWithCause() {
    Histories.assumeRecording();
    world.refuseSubmit = "Invalid partition name specified";
    PodRequest r = request("rec-refused", Map.of(), 30);
    PodScheduleWorkflow wf = schedule(r, TUNING);
    env.sleep(java.time.Duration.ofSeconds(5)); // time for a few of the old rule's retries
    if (!in(wf, SchedulePhase.INVALID)) {
      world.pods.remove(r.name());
      wf.podObserved(PodView.absent(r.name()));
    }
    result(wf);
    write("schedule-refused-caused", r);
  }

  private void write(String name, dev.tandem.workflows.schedule.PodRequest pod) {
    String wid = PodScheduleWorkflowImpl.workflowId(pod);
    Histories.record(client, name, wid, null);
  }
}
