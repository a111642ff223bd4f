package dev.tandem.e2e;

import static dev.tandem.e2e.FaultStack.EVERY;
import static dev.tandem.e2e.FaultStack.LIMIT;
import static dev.tandem.e2e.FaultStack.msSince;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dev.Manifests;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodePhase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fault suite, slurmrestd stopped for 45 s ({@code slurm-local.sh rest-stop}; slurmctld, slurmd and
 * jobs keep running) while two NodeSets are busy:
 *
 * <ul>
 *   <li>{@code e2e} (3 nodes, a job on each): a scale-down to 2 whose victim {@code e2e-2} is
 *       draining and waiting for its job when slurmrestd goes; that job ends during the outage; a
 *       manual drain of {@code e2e-0} (its job still running) is asked during the outage.
 *   <li>{@code gpu-a} (3 nodes, a job on {@code gpu-a-2}): a rolling update (maxUnavailable 1)
 *       starts during the outage.
 * </ul>
 *
 * While Slurm cannot be read nothing may be deleted or taken for idle or drained: no pod deletion,
 * no node past {@code draining}. SlurmReachable=False and Degraded=True (SlurmUnreachable) must
 * show on both NodeSets (status query, {@code tandem status} with its Slurm column, the custom
 * resource) within a few seconds. Once slurmrestd answers again, SlurmReachable=True, Degraded
 * without SlurmUnreachable and the Slurm column's states must show within {@link #BACK_WITHIN} (45
 * s is long enough that a poller backing off would sleep through the return), then everything
 * completes, and the invariants and end states hold.
 */
class SlurmOutageIT {
  private static final String A = "e2e";
  private static final String B = "gpu-a";
  private static final Duration OUTAGE = Duration.ofSeconds(45);

  /** Slurm's return shows this soon after slurmrestd answers again: as fast as its loss. */
  private static final Duration BACK_WITHIN = Duration.ofSeconds(5);

  /** "Within a few seconds": the poller polls every 500 ms here, the signal takes one hop. */
  private static final long SHOWS_WITHIN_MS = 10_000;

  private static FaultStack f;
  private static E2EStack e2e;

  @BeforeAll
  static void start() throws Exception {
    f = FaultStack.start(Map.of());
    e2e = f.e2e;
    e2e.apply(Manifests.nodeSet(A, 3, "slurmd:v1", ""));
    e2e.apply(Manifests.nodeSet(B, 3, "slurmd:v1", ""));
    for (int i = 0; i < 3; i++) {
      e2e.awaitPhase(A + "-" + i, NodePhase.READY);
      e2e.awaitPhase(B + "-" + i, NodePhase.READY);
    }
  }

  @AfterAll
  static void stop() {
    if (f == null) {
      return;
    }
    try {
      e2e.deleteNodeSet(A, LIMIT);
      e2e.deleteNodeSet(B, LIMIT);
    } finally {
      f.close();
    }
  }

  @Test
  void nothingIsDeletedOrTakenForIdleWhileSlurmrestdIsDown() throws Exception {
    List<Long> jobs = new ArrayList<>();
    try (InvariantMonitor monA = f.monitor(A);
        InvariantMonitor monB = f.monitor(B);
        PhaseRecorder rec = new PhaseRecorder(e2e, List.of(A, B), EVERY).start()) {
      long a0 = job(monA, A + "-0", jobs);
      long a1 = job(monA, A + "-1", jobs);
      long a2 = job(monA, A + "-2", jobs);
      long b2 = job(monB, B + "-2", jobs);
      for (String n : List.of(A + "-0", A + "-1", A + "-2")) {
        awaitBusy(e2e, A, n);
      }
      awaitBusy(e2e, B, B + "-2");

      // A drain under way when slurmrestd goes: the scale-down victim waits for its job.
      e2e.patchSpec(A, "{\"replicas\":2}");
      e2e.awaitPhase(A + "-2", NodePhase.DRAINING);
      Await.until(
          A + "-2 drained in Slurm for the scale-down",
          LIMIT,
          EVERY,
          () -> e2e.slurmNode(A + "-2").orElseThrow(),
          n -> n.drainFlag() && n.reason().startsWith("tandem:scale-down:"));

      long t0 = System.nanoTime();
      f.restStop();
      long stopped = System.nanoTime();

      // During the outage: a manual drain, a rolling update, and the victim's job ends.
      String drain = f.tandem("drain", A + "-0", "--reason", "fault suite");
      assertTrue(drain.startsWith("exit 0"), drain);
      monB.rollingUpdate(Set.of(B + "-0", B + "-1", B + "-2"), 1); // blind while Slurm is away
      e2e.patchSpec(B, template("slurmd:v2"));
      long showA = f.awaitCondition(A, Condition.SLURM_REACHABLE, Condition.FALSE, t0, LIMIT);
      long showB = f.awaitCondition(B, Condition.SLURM_REACHABLE, Condition.FALSE, t0, LIMIT);
      Condition degraded = f.condition(A, Condition.DEGRADED);
      assertEquals(Condition.TRUE, degraded.status(), degraded.toString());
      assertEquals("SlurmUnreachable", degraded.reason(), degraded.toString());
      String status = f.tandem("status", A);
      assertTrue(status.contains("! SlurmReachable=False (Unreachable): cannot reach"), status);
      assertTrue(status.contains("! Degraded=True (SlurmUnreachable): Slurm unreachable"), status);
      assertTrue(status.contains("unreachable (was "), "the Slurm column: " + status);
      Await.until(
          "SlurmReachable=False on the custom resource",
          LIMIT,
          EVERY,
          () -> f.crCondition(A, Condition.SLURM_REACHABLE),
          c -> c != null && Condition.FALSE.equals(c.get("status")));
      long showCr = msSince(t0);
      monA.jobCancelRequested(a2);
      e2e.scancel(a2);

      // Hold the outage for its full length, watching that nothing is deleted meanwhile.
      while (msSince(t0) < OUTAGE.toMillis()) {
        assertEquals(Map.of(), monA.podDeletions(), "a pod of " + A + " deleted during the outage");
        assertEquals(Map.of(), monB.podDeletions(), "a pod of " + B + " deleted during the outage");
        Thread.sleep(500);
      }
      long restart = System.nanoTime();
      f.restStart();
      long answers = System.nanoTime();
      long outageMs = msSince(t0);
      assertEquals(Map.of(), monA.podDeletions());
      assertEquals(Map.of(), monB.podDeletions());
      List<PhaseRecorder.Sighting> wrong =
          rec.phasesOutside(stopped, restart, Set.of(NodePhase.READY, NodePhase.DRAINING));
      assertEquals(List.of(), wrong, "nodes moved on while Slurm could not be read");
      assertEquals(List.of(), rec.unknownToSlurm(stopped, restart), "a node taken for gone");
      Set<String> podsB = Set.of(B + "-0", B + "-1", B + "-2");
      int outB = rec.maxNotReady(podsB, stopped, restart);
      assertTrue(outB <= 1, outB + " nodes of " + B + " out of service at once (maxUnavailable 1)");

      // After: the return shows within seconds, on both NodeSets, then everything completes.
      long back =
          f.awaitCondition(A, Condition.SLURM_REACHABLE, Condition.TRUE, answers, BACK_WITHIN);
      long backB =
          f.awaitCondition(B, Condition.SLURM_REACHABLE, Condition.TRUE, answers, BACK_WITHIN);
      for (String set : List.of(A, B)) {
        Await.until(
            set + ": Degraded no longer SlurmUnreachable, the Slurm column shows states",
            BACK_WITHIN,
            Duration.ofMillis(100),
            () -> e2e.nodeSetStatus(set),
            snap ->
                !"SlurmUnreachable".equals(snap.status().condition(Condition.DEGRADED).reason())
                    && snap.nodes().stream()
                        .noneMatch(n -> n.slurmState().startsWith("unreachable")));
      }
      long clearedMs = msSince(answers);
      Await.until(
          A + "-2 deleted (its job ended during the outage)",
          LIMIT,
          EVERY,
          () -> e2e.nodeSetStatus(A).nodes().size(),
          n -> n == 2);
      long victimGoneMs = msSince(restart);
      Await.until(
          "the manual drain of " + A + "-0 in Slurm",
          LIMIT,
          EVERY,
          () -> e2e.slurmNode(A + "-0").orElseThrow(),
          n -> n.drainFlag() && "tandem:manual: fault suite".equals(n.reason()));
      long manualDrainMs = msSince(restart);
      assertEquals(NodePhase.DRAINING, e2e.nodeStatus(A + "-0").phase(), "its job still runs");
      e2e.awaitPhase(B + "-2", NodePhase.DRAINING); // the rollout reached the busy node
      long rolloutReachedBusyMs = msSince(restart);

      monA.jobCancelRequested(a0);
      e2e.scancel(a0);
      e2e.awaitPhase(A + "-0", NodePhase.DRAINED);
      String undrain = f.tandem("undrain", A + "-0");
      assertTrue(undrain.startsWith("exit 0"), undrain);
      monB.jobCancelRequested(b2);
      e2e.scancel(b2);
      EndStates.await(e2e, B, 3, LIMIT);
      monB.rollingUpdateDone();
      EndStates.await(e2e, A, 2, LIMIT);
      monA.checkJobs();
      monB.checkJobs();
      assertEquals(List.of(), monA.violations());
      assertEquals(List.of(), monB.violations());
      assertTrue(e2e.slurm.getJob(a1).running(), "the job on " + A + "-1 runs on");
      System.out.printf(
          "FAULT slurmrestd-stop: outage %d ms; SlurmReachable=False on the status query after"
              + " %d ms (%s) and %d ms (%s), on the custom resource after %d ms; rest-start"
              + " took %d ms, then SlurmReachable=True after %d ms (%s) and %d ms (%s),"
              + " Degraded and the Slurm column clear after %d ms; after rest-start: the victim"
              + " deleted after %d ms, the manual drain in Slurm after %d ms, the rollout at the"
              + " busy node after %d ms; monitor polls %d/%d failed%n",
          outageMs,
          showA,
          A,
          showB,
          B,
          showCr,
          (answers - restart) / 1_000_000,
          back,
          A,
          backB,
          B,
          clearedMs,
          victimGoneMs,
          manualDrainMs,
          rolloutReachedBusyMs,
          monA.failedPolls(),
          monA.polls() + monA.failedPolls());
      assertTrue(showA < SHOWS_WITHIN_MS && showB < SHOWS_WITHIN_MS, showA + " / " + showB);
    } finally {
      for (long j : jobs) {
        cancelQuietly(j);
      }
    }
  }

  private static long job(InvariantMonitor m, String node, List<Long> jobs) throws Exception {
    long id = e2e.sbatch(node, 900);
    jobs.add(id);
    Await.until(id + " running", LIMIT, EVERY, () -> e2e.slurm.getJob(id), SlurmJob::running);
    m.jobRunning(id, node);
    return id;
  }

  /** The NodeSet's report shows the node allocated: the planner sees it busy. */
  static void awaitBusy(E2EStack e2e, String set, String node) {
    Await.until(
        node + " reported busy",
        LIMIT,
        EVERY,
        () -> e2e.nodeSetStatus(set).nodes(),
        ns ->
            ns.stream()
                .anyMatch(
                    n ->
                        n.pod().equals(node)
                            && (n.slurmState().startsWith("alloc")
                                || n.slurmState().startsWith("mixed"))));
  }

  static String template(String image) {
    return "{\"template\":{\"spec\":{\"containers\":[{\"name\":\"slurmd\",\"image\":\""
        + image
        + "\"}]}}}";
  }

  private static void cancelQuietly(long job) {
    try {
      e2e.scancel(job);
    } catch (Exception e) {
      // already gone
    }
  }
}
