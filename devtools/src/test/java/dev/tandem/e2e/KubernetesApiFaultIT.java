package dev.tandem.e2e;

import static dev.tandem.e2e.FaultStack.EVERY;
import static dev.tandem.e2e.FaultStack.LIMIT;
import static dev.tandem.e2e.FaultStack.msSince;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.faults.ApiFaults;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSummary;
import dev.tandem.workflows.model.TimelineEntry;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fault suite, the Kubernetes API failing for Tandem for a while during a rolling update and a
 * scale-up: the proxy between the worker and the API server answers every write with 409 Conflict
 * for 20 s, then every request with 503 for 20 s (open watches dropped first, as when an API server
 * restarts). Only the worker is hit: the kubelet and the control plane's controllers reach the API
 * server directly.
 *
 * <p>No wrong action: no pod deleted under a running job, no pod taken for lost (a relist after the
 * dropped watches must not look like a vanished pod), maxUnavailable kept.
 * KubernetesReachable=False shows on the NodeSet within seconds of the 503s, the failing calls show
 * as the node workflows' retrying activities (the Temporal UI's pending activities), and everything
 * completes after.
 */
class KubernetesApiFaultIT {
  private static final String SET = "e2e";
  private static final Duration FAILING = Duration.ofSeconds(20);
  private static final Duration CONFLICTING = Duration.ofSeconds(20);
  private static FaultStack f;
  private static E2EStack e2e;

  @BeforeAll
  static void start() throws Exception {
    // Nodes at rest re-read every resync (10 s), so that some call lands in the 20 s of 503s: with
    // the default bound a settled node waits 60 to 80 s here.
    f =
        FaultStack.withNodeSet(
            SET,
            3,
            Map.of("TANDEM_KUBERNETES_PROBE_INTERVAL", "1s", "TANDEM_NODE_REST_MAX", "10s"));
    e2e = f.e2e;
  }

  @AfterAll
  static void stop() {
    if (f != null) {
      f.close(); // deletes the NodeSet first
    }
  }

  @Test
  void noWrongActionWhileTheApiAnswers503And409() throws Exception {
    String busy = SET + "-2";
    long job = e2e.sbatch(busy, 900);
    ApiFaults faults = f.apiFaults();
    try (InvariantMonitor mon = f.monitor(SET)) {
      Await.until("job running", LIMIT, EVERY, () -> e2e.slurm.getJob(job), SlurmJob::running);
      mon.jobRunning(job, busy);
      SlurmOutageIT.awaitBusy(e2e, SET, busy);
      mon.rollingUpdate(Set.of(SET + "-0", SET + "-1", busy), 1);
      e2e.patchSpec(
          SET,
          "{\"replicas\":4,\"template\":{\"spec\":{\"containers\":"
              + "[{\"name\":\"slurmd\",\"image\":\"slurmd:v2\"}]}}}");
      // The rollout is under way: the first node has left ready.
      Await.until(
          "a node on its way to the new revision",
          LIMIT,
          Duration.ofMillis(50),
          () -> e2e.nodeSetStatus(SET).nodes(),
          ns -> ns.stream().anyMatch(n -> !n.pod().equals(busy) && n.phase() != NodePhase.READY));

      // 1. Every write answers 409 Conflict (reads work).
      long t0 = System.nanoTime();
      ApiFaults.Fault conflicts = faults.failMatching(ApiFaults.Request::isWrite, 409, CONFLICTING);
      sleepUntil(t0, CONFLICTING);
      List<String> retrying409 = retryingActivities();

      // 2. Every request answers 503; open watches are dropped, as when an API server restarts.
      long t1 = System.nanoTime();
      conflicts.cancel();
      faults.dropWatches();
      ApiFaults.Fault unavailable = faults.failAll(503, FAILING);
      long show = f.awaitCondition(SET, Condition.KUBERNETES_REACHABLE, Condition.FALSE, t1, LIMIT);
      String why = f.condition(SET, Condition.KUBERNETES_REACHABLE).message();
      String status = f.tandem("status", SET);
      assertTrue(status.contains("! KubernetesReachable=False (Unreachable): "), status);
      sleepUntil(t1, FAILING);
      List<String> retrying = retryingActivities();
      unavailable.cancel();
      long t2 = System.nanoTime();
      long back = f.awaitCondition(SET, Condition.KUBERNETES_REACHABLE, Condition.TRUE, t2, LIMIT);
      assertEquals(List.of(), podsTakenForLost(), "pods taken for lost during the faults");

      // After: the rollout and the scale-up complete once the job ends.
      String rev = e2e.nodeSetStatus(SET).status().updateRevision();
      Await.until(
          "the rollout waits only for " + busy + ", draining around its job",
          LIMIT,
          EVERY,
          () -> e2e.nodeSetStatus(SET).nodes(),
          ns ->
              ns.size() == 4
                  && ns.stream()
                      .allMatch(
                          n ->
                              n.pod().equals(busy)
                                  ? n.phase() == NodePhase.DRAINING
                                  : n.phase() == NodePhase.READY && rev.equals(n.revision())));
      long settledMs = msSince(t2);
      mon.jobCancelRequested(job);
      e2e.scancel(job);
      EndStates.await(e2e, SET, 4, LIMIT);
      mon.rollingUpdateDone();
      mon.checkJobs();
      assertEquals(List.of(), mon.violations());
      assertEquals(List.of(), podsTakenForLost(), "pods taken for lost after the faults");
      System.out.printf(
          "FAULT kubernetes-api: 409 on writes for %d s (%d answered), then 503 for %d s (%d"
              + " answered); KubernetesReachable=False after %d ms (\"%s\"), True %d ms after the"
              + " 503s ended; retrying during the 503s: %s; during the 409s: %s; the rollout"
              + " settled %d ms after the faults; max unavailable seen %d%n",
          CONFLICTING.toSeconds(),
          conflicts.hits(),
          FAILING.toSeconds(),
          unavailable.hits(),
          show,
          why,
          back,
          retrying,
          retrying409,
          settledMs,
          mon.maxUnavailableSeen());
      assertTrue(unavailable.hits() > 0 && conflicts.hits() > 0, "the faults were never hit");
      assertTrue(
          retrying.stream().anyMatch(r -> r.contains("HTTP 503")),
          "no node workflow showed an activity retrying on the 503s: " + retrying);
    } finally {
      faults.clear();
      try {
        e2e.scancel(job);
      } catch (IOException e) {
        // already gone
      }
    }
  }

  private static void sleepUntil(long startNanos, Duration d) throws InterruptedException {
    Thread.sleep(Math.max(0, d.toMillis() - msSince(startNanos)));
  }

  /**
   * What the Temporal UI shows of the node workflows now: each activity retrying, with its attempt
   * and the last failure's message (Temporal answers this from its own records, no worker needed).
   */
  private static List<String> retryingActivities() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      String id = Names.nodeWorkflowId("default", SET + "-" + i);
      try {
        for (PendingActivityInfo a :
            e2e.temporal
                .getWorkflowServiceStubs()
                .blockingStub()
                .describeWorkflowExecution(
                    DescribeWorkflowExecutionRequest.newBuilder()
                        .setNamespace("default")
                        .setExecution(WorkflowExecution.newBuilder().setWorkflowId(id))
                        .build())
                .getPendingActivitiesList()) {
          if (a.getAttempt() > 1) {
            String msg = a.getLastFailure().getMessage();
            out.add(
                SET
                    + "-"
                    + i
                    + " "
                    + a.getActivityType().getName()
                    + " attempt "
                    + a.getAttempt()
                    + ": "
                    + (msg.length() > 120 ? msg.substring(0, 120) + "..." : msg));
          }
        }
      } catch (RuntimeException e) {
        // no such workflow (yet)
      }
    }
    return out;
  }

  /** Timeline entries that say a pod vanished behind Tandem's back. */
  private static List<String> podsTakenForLost() {
    List<String> out = new ArrayList<>();
    for (NodeSummary n : e2e.nodeSetStatus(SET).nodes()) {
      for (TimelineEntry t : e2e.nodeStatus(n.pod()).timeline()) {
        if (t.event().startsWith("pod-lost")) {
          out.add(n.pod() + " " + t);
        }
      }
    }
    if (!out.isEmpty()) {
      // What led there, for the failure's reader: each node's whole timeline.
      for (NodeSummary n : e2e.nodeSetStatus(SET).nodes()) {
        System.out.println("timeline of " + n.pod() + ":");
        e2e.nodeStatus(n.pod()).timeline().forEach(t -> System.out.println("  " + t));
      }
    }
    return out;
  }
}
