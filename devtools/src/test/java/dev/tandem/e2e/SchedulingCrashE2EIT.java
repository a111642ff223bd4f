package dev.tandem.e2e;

import static dev.tandem.e2e.SchedPods.EVERY;
import static dev.tandem.e2e.SchedPods.LIMIT;
import static dev.tandem.e2e.SchedPods.annotation;
import static dev.tandem.e2e.SchedPods.uid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.PlaceholderJob;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.testing.Await;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 10's scenarios that need a worker killed with SIGKILL at a chosen moment, and the gang
 * scenario (3 nodes): after any crash, exactly one job per pod and the pod bound once; a running
 * pod and its job stay paired across a restart; a 3-pod gang binds together and ends together.
 */
class SchedulingCrashE2EIT {
  @AutoClose private static E2EStack e2e;
  private static SchedPods pods;
  private final List<Long> fillers = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    e2e = E2EStack.startWithNodeSet("e2e", 3);
    pods = new SchedPods(e2e);
  }

  @AfterEach
  void cleanUp() throws Exception {
    for (long j : fillers) {
      e2e.scancel(j);
    }
    fillers.clear();
    e2e.superviseWorker(true);
    if (e2e.workerPid() < 0) {
      e2e.startWorker();
    }
    pods.deleteAll();
  }

  @Test
  void workerKilledAfterSubmitAndBeforeBindLeavesOneJobAndBindsThePodOnce() throws Exception {
    // Every node busy with a job of the same priority tier: the placeholder stays queued.
    for (int i = 0; i < 3; i++) {
      fillers.add(sbatchExclusive("e2e-" + i));
    }
    for (long j : fillers) {
      Await.until(
          "filler " + j + " running", LIMIT, EVERY, () -> e2e.slurm.getJob(j), SlurmJob::running);
    }
    Pod created = pods.create("crash-1", Map.of());
    PlaceholderJob queued =
        Await.until(
                "crash-1's placeholder queued",
                LIMIT,
                EVERY,
                () -> pods.jobs(uid(created)),
                js -> js.size() == 1)
            .get(0);
    assertEquals(PlaceholderJob.Phase.WAITING, queued.phase(), queued.toString());

    e2e.superviseWorker(false);
    e2e.killWorker();
    for (long j : fillers) {
      e2e.scancel(j); // the placeholder starts while no worker runs
    }
    fillers.clear();
    Await.until(
        "crash-1's placeholder running without a worker",
        LIMIT,
        EVERY,
        () -> pods.jobs(uid(created)),
        js -> js.size() == 1 && js.get(0).phase() == PlaceholderJob.Phase.RUNNING);
    e2e.superviseWorker(true);
    e2e.startWorker();

    Pod bound = pods.awaitBound("crash-1");
    List<PlaceholderJob> jobs = pods.jobs(uid(created));
    assertEquals(1, jobs.size(), "exactly one job after the restart: " + jobs);
    assertEquals(queued.jobId(), jobs.get(0).jobId());
    String slurmNode = jobs.get(0).nodes().get(0);
    assertEquals(pods.k8sNodeOfSlurmNode(slurmNode), bound.getSpec().getNodeName());
    pods.awaitCondition("crash-1", "SlurmScheduled", "True");
    pods.awaitEvent("crash-1", "Scheduled");
    long scheduled =
        pods.events("crash-1").stream().filter(e -> "Scheduled".equals(e.getReason())).count();
    assertEquals(1, scheduled, "bound once");

    pods.delete("crash-1");
    pods.awaitGone("crash-1");
    Await.until(
        "crash-1's job ended", LIMIT, EVERY, () -> pods.liveJobs(uid(created)), List::isEmpty);
  }

  @Test
  void workerKilledWhileThePodRunsKeepsPodAndJobPaired() throws Exception {
    Pod created = pods.create("crash-2", Map.of());
    Pod bound = pods.awaitBound("crash-2");
    PlaceholderJob job = pods.jobs(uid(created)).get(0);

    e2e.superviseWorker(false);
    e2e.killWorker();
    e2e.superviseWorker(true);
    e2e.startWorker();
    // Past a Slurm poll and a workflow re-read, the pair is unchanged.
    Thread.sleep(3000);
    Pod after = pods.get("crash-2").orElseThrow();
    assertEquals(bound.getSpec().getNodeName(), after.getSpec().getNodeName());
    assertEquals(null, after.getMetadata().getDeletionTimestamp());
    List<PlaceholderJob> jobs = pods.jobs(uid(created));
    assertEquals(1, jobs.size(), jobs.toString());
    assertEquals(job.jobId(), jobs.get(0).jobId());
    assertEquals(PlaceholderJob.Phase.RUNNING, jobs.get(0).phase());
    assertEquals(Long.toString(job.jobId()), annotation(after, "tandem.dev/job-id"));

    // Still owned: deleting the pod cancels the job.
    pods.delete("crash-2");
    pods.awaitGone("crash-2");
    Await.until(
        "crash-2's job ended", LIMIT, EVERY, () -> pods.liveJobs(uid(created)), List::isEmpty);
  }

  @Test
  void aThreePodGangBindsTogetherAndDeletingOneMemberEndsTheGroup() {
    runGang("first");
    // The same gang again (as a Job controller re-creates it): Slurm still lists the ended job of
    // the first one, which must not be taken for the new one's.
    runGang("second");
  }

  private void runGang(String round) {
    Map<String, String> gang = Map.of("tandem.dev/pod-group", "g1", "tandem.dev/group-size", "3");
    List<PlaceholderJob> before = pods.gangJobs("default", "g1");
    pods.create("g1-0", gang);
    pods.create("g1-1", gang);
    // Two of three: nobody is bound, no job.
    PodCondition waiting = pods.awaitCondition("g1-0", "SlurmScheduled", "False");
    assertEquals("WaitingForGroup", waiting.getReason(), round);
    assertEquals(
        before, pods.gangJobs("default", "g1"), round + ": no job before the gang is complete");
    pods.create("g1-2", gang);

    Set<String> k8sNodes = new HashSet<>();
    for (String m : List.of("g1-0", "g1-1", "g1-2")) {
      Pod p = pods.awaitBound(m);
      k8sNodes.add(p.getSpec().getNodeName());
    }
    List<PlaceholderJob> live = SchedPods.live(pods.gangJobs("default", "g1"));
    assertEquals(1, live.size(), round + ": one job for the gang: " + live);
    PlaceholderJob job = live.get(0);
    assertEquals(3, job.nodes().size(), job.toString());
    Set<String> expected = new HashSet<>();
    for (String n : job.nodes()) {
      expected.add(pods.k8sNodeOfSlurmNode(n));
    }
    assertEquals(expected, k8sNodes, "each member on the node of one of the job's Slurm nodes");

    pods.delete("g1-1");
    Await.until(
        round + ": the gang's job ended",
        LIMIT,
        EVERY,
        () -> SchedPods.live(pods.gangJobs("default", "g1")),
        List::isEmpty);
    for (String m : List.of("g1-0", "g1-2")) {
      pods.awaitGone(m);
      assertTrue(
          pods.events(m).stream().anyMatch(e -> e.getMessage().contains("g1-1")),
          m + "'s events name the member that ended: " + pods.events(m));
    }
  }

  private static long sbatchExclusive(String node) throws Exception {
    return e2e.sbatch("low", "normal", node, true, 300);
  }
}
