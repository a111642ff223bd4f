package dev.tandem.e2e;

import static dev.tandem.e2e.SchedPods.EVERY;
import static dev.tandem.e2e.SchedPods.LIMIT;
import static dev.tandem.e2e.SchedPods.annotation;
import static dev.tandem.e2e.SchedPods.uid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.PlaceholderJob;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.testing.Await;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 10's end-to-end scenarios through the whole stack (real Slurm and slurmd, the local
 * Kubernetes API and kubelet, Temporal's test server, the worker as its own JVM): a pod with {@code
 * schedulerName: tandem-slurm} is bound where Slurm runs its placeholder job; a real high-priority
 * job preempts it and the pod is evicted with the reason; deleting the pod ends the job; an invalid
 * pod, and one Slurm refuses, gets a condition and an event and no job.
 */
class SchedulingE2EIT {
  /** The local Slurm's KillWait (scripts/lib/slurm-local-setup.sh). */
  private static final int KILL_WAIT = 5;

  @AutoClose private static E2EStack e2e;
  private static SchedPods pods;

  @BeforeAll
  static void start() throws Exception {
    e2e = E2EStack.startWithNodeSet("e2e", 3);
    pods = new SchedPods(e2e);
  }

  @AfterEach
  void cleanUp() {
    pods.deleteAll();
  }

  @Test
  void boundWhereSlurmRunsThePlaceholderAndDeletingThePodReleasesTheJob() {
    Pod created = pods.create("bind-1", Map.of());
    Pod bound = pods.awaitBound("bind-1");

    PlaceholderJob job = onlyJob(uid(created));
    assertEquals(PlaceholderJob.Phase.RUNNING, job.phase(), job.toString());
    assertEquals(1, job.nodes().size(), job.toString());
    String slurmNode = job.nodes().get(0);
    // The Kubernetes node that hosts the slurmd pod of the Slurm node the job runs on.
    assertEquals(pods.k8sNodeOfSlurmNode(slurmNode), bound.getSpec().getNodeName());
    Pod annotated =
        Await.until(
            "bind-1 annotated",
            LIMIT,
            EVERY,
            () -> pods.get("bind-1").orElseThrow(),
            p -> annotation(p, "tandem.dev/job-id") != null);
    assertEquals(Long.toString(job.jobId()), annotation(annotated, "tandem.dev/job-id"));
    assertEquals(slurmNode, annotation(annotated, "tandem.dev/slurm-node"));
    PodCondition c = pods.awaitCondition("bind-1", "SlurmScheduled", "True");
    assertEquals("JobRunning", c.getReason());
    pods.awaitEvent("bind-1", "Scheduled");
    // A real kubelet would refuse a pod that does not fit; the local one checks the same way.
    Await.until(
        "bind-1 running",
        LIMIT,
        EVERY,
        () -> pods.get("bind-1").orElseThrow().getStatus().getPhase(),
        "Running"::equals);

    pods.delete("bind-1");
    pods.awaitGone("bind-1");
    Await.until(
        "bind-1's job ended", LIMIT, EVERY, () -> pods.liveJobs(uid(created)), List::isEmpty);
    // Held while the pod was being deleted, released once it was gone: the placeholder's shell
    // exited on the signal (0), not killed after KillWait (137).
    SlurmJob ended =
        Await.until(
            "bind-1's job off its node",
            LIMIT,
            EVERY,
            () -> e2e.slurm.getJob(job.jobId()),
            j -> !j.mayHoldNodes());
    assertEquals(0, ended.exitCode(), ended.toString());
  }

  @Test
  void aRealHighPriorityJobPreemptsThePlaceholderAndThePodIsEvicted() throws Exception {
    Pod created = pods.create("preempt-1", Map.of());
    pods.awaitBound("preempt-1");
    String slurmNode = onlyJob(uid(created)).nodes().get(0);

    SchedPods.ConditionWatch preempted = pods.watchCondition("preempt-1", "SlurmPreempted", "True");
    long high = e2e.sbatchHigh(slurmNode, 120);
    try (preempted) {
      PodCondition c = preempted.await();
      assertEquals("Preempted", c.getReason(), c.toString());
      assertTrue(c.getMessage().contains(" on " + slurmNode + " "), c.toString());
      assertFalse(c.getMessage().contains("reason None"), c.toString());
      Event ev = pods.awaitEvent("preempt-1", "SlurmPreempted");
      assertEquals("Warning", ev.getType());
      pods.awaitGone("preempt-1");
      PlaceholderJob after =
          Await.until(
              "placeholder ended as preempted",
              LIMIT,
              EVERY,
              () -> pods.jobs(uid(created)).get(0),
              j -> j.phase() == PlaceholderJob.Phase.PREEMPTED);
      SlurmJob preemptor =
          Await.until(
              "high job running", LIMIT, EVERY, () -> e2e.slurm.getJob(high), SlurmJob::running);
      // The placeholder ignores SIGTERM: it held the node for KillWait (5 s on the local Slurm)
      // after the preemption, the window in which the pod was evicted (1 s clock resolution).
      assertTrue(
          !preemptor.startTime().isBefore(after.preemptTime().plusSeconds(KILL_WAIT - 1)),
          "preemptor started " + preemptor.startTime() + ", preempted " + after.preemptTime());
      // Slurm names no preemptor; once the high job runs on the node, the pod is told which it is.
      String named = "Slurm job " + high + " (partition high, QOS high)";
      Event by =
          Await.until(
                  "an event naming the preempting job",
                  LIMIT,
                  EVERY,
                  () ->
                      pods.events("preempt-1").stream()
                          .filter(e -> e.getMessage() != null && e.getMessage().startsWith(named))
                          .findFirst(),
                  java.util.Optional::isPresent)
              .orElseThrow();
      assertTrue(by.getMessage().contains("started on " + slurmNode), by.getMessage());
    } finally {
      e2e.scancel(high);
    }
  }

  /**
   * A pod removed at once (force-deleted; a completed pod is the same case) has stopped: its
   * placeholder is released, its node free at once, instead of being cancelled and holding the node
   * for KillWait after the deletion.
   */
  @Test
  void aForceDeletedPodHasItsPlaceholderReleasedAtOnce() {
    Pod created = pods.create("release-1", Map.of());
    pods.awaitBound("release-1");
    Await.until(
        "release-1 running",
        LIMIT,
        EVERY,
        () -> pods.get("release-1").orElseThrow().getStatus().getPhase(),
        "Running"::equals);
    long id = onlyJob(uid(created)).jobId();

    long start = System.nanoTime();
    pods.forceDelete("release-1");
    SlurmJob ended =
        Await.until(
            "release-1's job ended",
            LIMIT,
            EVERY,
            () -> e2e.slurm.getJob(id),
            j -> !j.mayHoldNodes());
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    // Its shell exited on the release signal (0). Cancelled, it would have held the node for
    // KillWait after the cancel and been killed (137, SIGKILL).
    assertEquals(0, ended.exitCode(), "held " + took + ", then killed: cancelled, not released");
  }

  @Test
  void anInvalidPodGetsAConditionAndAnEventAndNoJob() {
    Pod created = pods.create("invalid-1", Map.of("tandem.dev/exclusive", "sometimes"));
    PodCondition c = pods.awaitCondition("invalid-1", "SlurmScheduled", "False");
    assertEquals("InvalidPod", c.getReason());
    assertTrue(c.getMessage().contains("must be none, user or exclusive"), c.getMessage());
    Event ev = pods.awaitEvent("invalid-1", "InvalidPod");
    assertEquals("Warning", ev.getType());
    assertTrue(pods.jobs(uid(created)).isEmpty(), "no job for an invalid pod");
    assertEquals(null, pods.get("invalid-1").orElseThrow().getSpec().getNodeName());

    // Fixing it means a new pod: that one is scheduled.
    pods.delete("invalid-1");
    pods.awaitGone("invalid-1");
    Pod fixed = pods.create("invalid-1", Map.of("tandem.dev/exclusive", "none"));
    pods.awaitBound("invalid-1");
    assertEquals(1, pods.jobs(uid(fixed)).size());
    pods.delete("invalid-1");
    pods.awaitGone("invalid-1");
  }

  @Test
  void aPodNoSlurmNodeCanHoldIsInvalidInSlurmsWordsAndTheNextPodIsStillScheduled() {
    // Passes Tandem's own checks (requests present and positive), but the pool's nodes declare 32
    // CPUs each: the real Slurm refuses the placeholder at submit, for good.
    Pod big = pods.create("too-big-1", Map.of(), Map.of("cpu", "500", "memory", "256Mi"));
    PodCondition c = pods.awaitCondition("too-big-1", "SlurmScheduled", "False");
    assertEquals("InvalidPod", c.getReason(), c.getMessage());
    assertTrue(c.getMessage().contains("Slurm refused the placeholder job"), c.getMessage());
    // Slurm's answer to the submit, in its words, with nothing appended. Also when the workflow
    // task that took the refusal was run again (a signal landed on it) after the watcher listed the
    // refused job's FAILED record: the worker answers a repeated submit with the same words, so
    // the condition and the event below agree.
    assertTrue(
        c.getMessage().contains("Requested node configuration is not available (Slurm error 2014)"),
        c.getMessage());
    assertFalse(c.getMessage().contains("caused by"), c.getMessage());
    assertTrue(
        c.getMessage()
            .contains(
                "asking for 1 node with 500 CPUs and 256 MiB, partition tandem; change the pod's"
                    + " requests"),
        c.getMessage());
    Event ev = pods.awaitEvent("too-big-1", "InvalidPod");
    assertEquals("Warning", ev.getType());
    assertEquals(c.getMessage(), ev.getMessage());
    // Slurm 22.05 keeps a record of the refused submit, ended at once (FAILED, BadConstraints);
    // nothing of it runs or waits, and Tandem submits no other.
    List<PlaceholderJob> jobs = pods.jobs(uid(big));
    assertTrue(pods.liveJobs(uid(big)).isEmpty(), "nothing live for a refused pod: " + jobs);
    assertTrue(jobs.size() <= 1, "one submit, not one every poll: " + jobs);
    assertEquals(null, pods.get("too-big-1").orElseThrow().getSpec().getNodeName());

    // Nothing is wedged: a pod that fits is bound while the refused one stays.
    Pod fits = pods.create("fits-1", Map.of());
    pods.awaitBound("fits-1");
    assertEquals(1, pods.jobs(uid(fits)).size());
    assertEquals(null, pods.get("too-big-1").orElseThrow().getSpec().getNodeName());
  }

  @Test
  void aGangLargerThanTheNodesUpWaitsAndItsMembersSayWhySlurmKeepsItQueued() {
    // Four members on a pool of three slurmd pods: the partition declares more nodes, so Slurm
    // queues the 4-node job rather than refusing it, and gives its reason.
    Map<String, String> gang = Map.of("tandem.dev/pod-group", "big", "tandem.dev/group-size", "4");
    for (int i = 0; i < 4; i++) {
      pods.create("big-" + i, gang);
    }
    java.util.regex.Pattern told =
        java.util.regex.Pattern.compile("Slurm job \\d+ queued for group big \\(4 nodes\\): \\S+");
    for (int i = 0; i < 4; i++) {
      String m = "big-" + i;
      PodCondition c =
          dev.tandem.slurm.testing.Await.until(
              m + " told why its gang waits",
              SchedPods.LIMIT,
              SchedPods.EVERY,
              () -> pods.get(m).flatMap(p -> SchedPods.condition(p, "SlurmScheduled")).orElse(null),
              x -> x != null && told.matcher(x.getMessage()).matches());
      assertEquals("False", c.getStatus());
      assertEquals("JobPending", c.getReason(), c.getMessage());
      assertEquals(null, pods.get(m).orElseThrow().getSpec().getNodeName(), m + " not bound");
    }
    assertEquals(1, SchedPods.live(pods.gangJobs("default", "big")).size(), "one job, waiting");
    // Given up: the pods are deleted, the waiting job goes with them.
    for (int i = 0; i < 4; i++) {
      pods.delete("big-" + i);
    }
    dev.tandem.slurm.testing.Await.until(
        "the gang's job ended",
        SchedPods.LIMIT,
        SchedPods.EVERY,
        () -> SchedPods.live(pods.gangJobs("default", "big")),
        List::isEmpty);
  }

  /** The one job Slurm lists with the pod's uid tag. */
  static PlaceholderJob onlyJob(String uid) {
    return onlyJob(uid, pods);
  }

  /** The one job Slurm lists with the pod's uid tag, through {@code pods}. */
  static PlaceholderJob onlyJob(String uid, SchedPods pods) {
    List<PlaceholderJob> jobs = pods.jobs(uid);
    assertEquals(1, jobs.size(), "jobs tagged " + uid + ": " + jobs);
    assertNotNull(jobs.get(0));
    return jobs.get(0);
  }
}
