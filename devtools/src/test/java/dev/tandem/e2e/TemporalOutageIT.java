package dev.tandem.e2e;

import static dev.tandem.e2e.FaultStack.EVERY;
import static dev.tandem.e2e.FaultStack.LIMIT;
import static dev.tandem.e2e.FaultStack.msSince;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodePhase;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fault suite, Temporal away for 30 s while Kubernetes nodes are cordoned: the Temporal server's
 * process is stopped and, 30 s later, started again on the same database. Meanwhile the node of
 * {@code e2e-0} is cordoned (with a reason), and the node of another pod (on another node) is
 * cordoned and uncordoned again.
 *
 * <p>The same worker process (no restart, which would resend everything from scratch) must put
 * every cordon made during the outage into Slurm within one informer resync period ({@link
 * #RESYNC}) of Temporal answering again, the node workflow's own work included; the cordon that was
 * lifted during the outage leaves no drain. Then the invariants and end states. (Before the
 * worker's polls waited for the connection, the SDK's poll back-off kept the worker idle for 21.7 s
 * after Temporal was back, though the drain signal was accepted after 3 s: {@code
 * PollsWaitForConnection}.)
 */
class TemporalOutageIT {
  private static final String SET = "e2e";
  private static final Duration OUTAGE = Duration.ofSeconds(30);
  private static final String ADMIN = "fault-suite-disk-check";

  /** The worker's informer resync here: the bound the issue sets for a cordon to reach Slurm. */
  private static final Duration RESYNC = Duration.ofSeconds(20);

  private static FaultStack f;
  private static E2EStack e2e;

  @BeforeAll
  static void start() throws Exception {
    f = FaultStack.withNodeSet(SET, 3, Map.of("TANDEM_INFORMER_RESYNC", RESYNC.toSeconds() + "s"));
    e2e = f.e2e;
  }

  @AfterAll
  static void stop() {
    if (f != null) {
      f.close(); // deletes the NodeSet first
    }
  }

  @Test
  void cordonsMadeWhileTemporalIsUnreachableReachSlurmWithinOneResync() throws Exception {
    // The scheduler may put two of the pods on one Kubernetes node: take two on different nodes
    // (a cordon drains every pod of its node; the others are left out of the assertions).
    Map<String, String> nodeOf = new TreeMap<>();
    for (int i = 0; i < 3; i++) {
      nodeOf.put(SET + "-" + i, e2e.pod(SET + "-" + i).orElseThrow().getSpec().getNodeName());
    }
    String pod0 = SET + "-0";
    String node0 = nodeOf.get(pod0);
    String pod1 =
        nodeOf.keySet().stream()
            .filter(p -> !nodeOf.get(p).equals(node0))
            .findFirst()
            .orElseThrow(() -> new AssertionError("all pods on one Kubernetes node: " + nodeOf));
    String node1 = nodeOf.get(pod1);
    // The third pod carries an administrator's drain throughout, which nothing may lift (its node
    // may be one of the cordoned ones: then Tandem drains and undrains it too).
    String pod2 =
        nodeOf.keySet().stream().filter(p -> !p.equals(pod0) && !p.equals(pod1)).findFirst().get();
    long pid = e2e.workerPid();
    try (InvariantMonitor mon = f.monitor(SET)) {
      e2e.scontrol(pod2, "State=DRAIN Reason=" + ADMIN);
      Await.until(
          pod2 + " drained by an administrator",
          LIMIT,
          EVERY,
          () -> e2e.slurmNode(pod2).orElseThrow(),
          n -> n.drainFlag() && ADMIN.equals(n.reason()));
      // Declared once a whole monitor poll has read it: a poll under way read the node before.
      long polls = mon.polls();
      Await.until("two monitor polls", LIMIT, EVERY, mon::polls, n -> n >= polls + 2);
      mon.adminDrained(pod2, ADMIN);
      long t0 = System.nanoTime();
      f.temporalStop();
      Thread.sleep(2000);
      e2e.annotateCordonReason(node0, "fault suite: rack maintenance");
      e2e.cordon(node0);
      e2e.cordon(node1);
      Thread.sleep(8000);
      e2e.uncordon(node1);
      while (msSince(t0) < OUTAGE.toMillis()) {
        // Nothing can reach Slurm meanwhile: the worker gets no workflow task.
        assertTrue(!e2e.slurmNode(pod0).orElseThrow().drainFlag(), "drained without Temporal?");
        Thread.sleep(500);
      }
      f.temporalStart(); // returns once the server answers its health check
      long t1 = System.nanoTime();
      Instant back = Instant.now();
      long outageMs = (t1 - t0) / 1_000_000;

      SlurmNode n0 =
          Await.until(
              "the cordon of " + node0 + " in Slurm",
              LIMIT,
              Duration.ofMillis(100),
              () -> e2e.slurmNode(pod0).orElseThrow(),
              n -> n.drainFlag());
      long landedMs = msSince(t1);
      assertEquals("tandem:k8s-cordon: fault suite: rack maintenance", n0.reason());
      e2e.awaitPhase(pod0, NodePhase.DRAINED);
      assertEquals(pid, e2e.workerPid(), "the worker was restarted: not what is tested here");
      // The cordon lifted during the outage leaves nothing: no hold, no drain.
      Await.until(
          pod1 + " holds no cordon",
          LIMIT,
          EVERY,
          () -> e2e.nodeStatus(pod1),
          s -> s.phase() == NodePhase.READY && !s.holds().containsKey("k8s-cordon"));
      SlurmNode n1 = e2e.slurmNode(pod1).orElseThrow();
      assertTrue(!n1.drainFlag(), pod1 + " drained: " + n1);
      Instant[] seen = signalAndPickUp(pod0, back);
      System.out.printf(
          "FAULT temporal-stopped: outage %d ms; after Temporal was reachable again: the drain"
              + " signal accepted by Temporal after %d ms, the worker took the workflow task it caused after"
              + " %d ms, the cordon in Slurm after %d ms (bound: one resync, %d s); worker pid"
              + " unchanged%n",
          outageMs,
          Duration.between(back, seen[0]).toMillis(),
          Duration.between(back, seen[1]).toMillis(),
          landedMs,
          RESYNC.toSeconds());
      assertTrue(
          landedMs <= RESYNC.toMillis(),
          "the cordon reached Slurm " + landedMs + " ms after Temporal came back");

      e2e.uncordon(node0);
      e2e.awaitPhase(pod0, NodePhase.READY); // Tandem's drains lifted
      SlurmNode n2 = e2e.slurmNode(pod2).orElseThrow();
      assertTrue(n2.drainFlag() && ADMIN.equals(n2.reason()), "admin drain lifted: " + n2);
      mon.adminLifted(pod2);
      e2e.scontrol(pod2, "State=RESUME");
      EndStates.await(e2e, SET, 3, LIMIT);
      assertEquals(List.of(), mon.violations());
    } finally {
      f.temporalStart();
      e2e.uncordon(node0);
      e2e.uncordon(node1);
    }
  }

  /**
   * From the node workflow's history (server clock, this JVM): when the k8s-cordon drain signal was
   * accepted, and when a worker first started a workflow task after that (and after {@code after}).
   */
  private static Instant[] signalAndPickUp(String pod, Instant after) {
    Instant signal = null;
    Instant started = null;
    for (HistoryEvent e :
        e2e.temporal.fetchHistory(Names.nodeWorkflowId("default", pod)).getEvents()) {
      Instant at =
          Instant.ofEpochSecond(e.getEventTime().getSeconds(), e.getEventTime().getNanos());
      if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
          && signal == null
          && e.getWorkflowExecutionSignaledEventAttributes()
              .getSignalName()
              .equals(Names.SIGNAL_DRAIN)) {
        signal = at;
      }
      if (e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED
          && started == null
          && signal != null
          && !at.isBefore(after)) {
        started = at;
      }
    }
    return new Instant[] {signal, started};
  }
}
