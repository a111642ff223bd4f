package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.bench.WatchersBench;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.testing.Await;
import dev.tandem.watchers.SlurmMirror;
import dev.tandem.workflows.model.NodePhase;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 4 through the whole stack: the real Slurm, the local Kubernetes API with real slurmd pods,
 * the worker with its watchers. Kubernetes changes are sent as kubectl sends them (a strategic
 * merge patch for cordon); Slurm changes are made with scontrol, as an administrator would.
 *
 * <p>Each test leaves the two nodes of NodeSet {@code wt} ready, uncordoned and undrained.
 */
class WatchersE2EIT {
  private static final Duration LIMIT = Duration.ofSeconds(60);
  private static final Duration EVERY = Duration.ofMillis(100);

  /** The Slurm watcher's interval in {@link E2EStack#FAST}. */
  private static final Duration POLL = Duration.ofMillis(500);

  @AutoClose private static E2EStack e2e;

  @BeforeAll
  static void start() throws Exception {
    e2e = E2EStack.startWithNodeSet("wt", 2);
  }

  /** Back to the baseline: a supervised worker, nodes uncordoned, no admin drain, nodes ready. */
  @AfterEach
  void baseline() throws Exception {
    e2e.startWorker();
    e2e.superviseWorker(true);
    for (String k8sNode : List.of("local-1", "local-2", "local-3")) {
      uncordon(k8sNode);
    }
    for (String n : List.of("wt-0", "wt-1")) {
      SlurmNode s = e2e.slurmNode(n).orElseThrow();
      if (s.reason() != null && !s.reason().startsWith("tandem:")) {
        scontrol(n, "State=RESUME");
      }
      Await.until(
          n + " ready and undrained",
          LIMIT,
          EVERY,
          () -> e2e.slurmNode(n).orElseThrow(),
          x -> !x.drainFlag() && x.reason() == null && !x.flags().contains("NOT_RESPONDING"));
      e2e.awaitPhase(n, NodePhase.READY);
      Await.until(
          "mirror cleared on " + n,
          LIMIT,
          EVERY,
          () -> annotation(n, SlurmMirror.REASON),
          a -> a == null);
    }
  }

  @Test
  void cordonDrainsWithTheReasonAndUncordonUndrains() throws Exception {
    String k8sNode = nodeOf("wt-0");
    annotate(k8sNode, "rack 7 power work");
    cordon(k8sNode);
    Await.until(
        "wt-0 drained for the cordon",
        LIMIT,
        EVERY,
        () -> e2e.slurmNode("wt-0").orElseThrow(),
        n -> n.drainFlag() && "tandem:k8s-cordon: rack 7 power work".equals(n.reason()));
    e2e.awaitPhase("wt-0", NodePhase.DRAINED);
    assertEquals(
        null, annotation("wt-0", SlurmMirror.REASON), "Tandem's own drain is not mirrored");

    uncordon(k8sNode);
    Await.until(
        "wt-0 undrained",
        LIMIT,
        EVERY,
        () -> e2e.slurmNode("wt-0").orElseThrow(),
        n -> !n.drainFlag() && n.reason() == null);
    e2e.awaitPhase("wt-0", NodePhase.READY);
  }

  @Test
  void adminDrainIsMirroredAndSurvivesACordonCycle() throws Exception {
    scontrol("wt-1", "State=DRAIN Reason=disk");
    Await.until(
        "wt-1 annotated",
        LIMIT,
        EVERY,
        () -> annotation("wt-1", SlurmMirror.REASON),
        "disk"::equals);
    assertTrue(annotation("wt-1", SlurmMirror.STATE).contains("DRAIN"));
    // The condition is a second write (status subresource) after the annotations: wait for it.
    PodCondition c =
        Await.until(
            "wt-1 condition SlurmDrained",
            LIMIT,
            EVERY,
            () -> condition("wt-1").orElse(null),
            x -> x != null && "SlurmDrained".equals(x.getReason()));
    assertEquals("False", c.getStatus());
    assertEquals("SlurmDrained", c.getReason());
    assertEquals("disk", c.getMessage());

    String k8sNode = nodeOf("wt-1");
    cordon(k8sNode);
    e2e.awaitPhase("wt-1", NodePhase.DRAINED);
    assertEquals("disk", e2e.slurmNode("wt-1").orElseThrow().reason(), "admin reason kept");
    uncordon(k8sNode);
    e2e.awaitPhase("wt-1", NodePhase.READY);
    Thread.sleep(3 * POLL.toMillis());
    SlurmNode after = e2e.slurmNode("wt-1").orElseThrow();
    assertTrue(after.drainFlag(), "the administrator's drain survives the cycle");
    assertEquals("disk", after.reason());
    assertEquals("disk", annotation("wt-1", SlurmMirror.REASON));

    scontrol("wt-1", "State=RESUME");
    Await.until(
        "wt-1 mirror cleared",
        LIMIT,
        EVERY,
        () -> condition("wt-1").orElseThrow(),
        x -> "True".equals(x.getStatus()) && annotation("wt-1", SlurmMirror.STATE) == null);
  }

  @Test
  void stoppedSlurmdShowsOnThePodWithinThePollInterval() throws Exception {
    long pid = slurmdPid("wt-1");
    signal(pid, "STOP");
    try {
      // Slurm notices on its own schedule (pings, SlurmdTimeout); measure from when it does.
      Await.until(
          "Slurm shows wt-1 not responding",
          Duration.ofSeconds(90),
          Duration.ofMillis(50),
          () -> e2e.slurmNode("wt-1").orElseThrow(),
          n -> n.flags().contains("NOT_RESPONDING"));
      long seen = System.nanoTime();
      Await.until(
          "pod condition",
          Duration.ofSeconds(10),
          Duration.ofMillis(50),
          () -> condition("wt-1"),
          x -> x.isPresent() && "False".equals(x.get().getStatus()));
      long lagMs = (System.nanoTime() - seen) / 1_000_000;
      System.out.printf(
          "stopped slurmd: pod condition %d ms after Slurm showed NOT_RESPONDING (poll %d ms)%n",
          lagMs, POLL.toMillis());
      assertTrue(
          lagMs <= POLL.toMillis() + 1500,
          "pod shows it " + lagMs + " ms after Slurm (poll " + POLL.toMillis() + " ms)");
      assertEquals("NotResponding", condition("wt-1").get().getReason());
      assertTrue(annotation("wt-1", SlurmMirror.STATE).contains("NOT_RESPONDING"));
    } finally {
      signal(pid, "CONT");
    }
    // slurmd answers again; Slurm returns it (ReturnToService=1) or we resume it ourselves.
    Await.until(
        "wt-1 responding",
        LIMIT,
        EVERY,
        () -> {
          SlurmNode n = e2e.slurmNode("wt-1").orElseThrow();
          if (n.down() && !n.flags().contains("NOT_RESPONDING")) {
            resume("wt-1");
          }
          return n;
        },
        n -> !n.flags().contains("NOT_RESPONDING") && !n.down());
    Await.until(
        "pod healthy again",
        LIMIT,
        EVERY,
        () -> condition("wt-1").orElseThrow(),
        x -> "True".equals(x.getStatus()));
  }

  /**
   * The worker (and with it every watcher) is killed with SIGKILL and changes are made while none
   * runs; once it is back, the watchers' first listing repairs what they missed, both ways.
   */
  @Test
  void changesMadeWhileTheWorkerIsDeadAreRepairedAfterItsRestart() throws Exception {
    String k8sNode = nodeOf("wt-0");
    e2e.superviseWorker(false);
    e2e.killWorker();
    annotate(k8sNode, "while the watchers were away");
    cordon(k8sNode);
    scontrol("wt-1", "State=DRAIN Reason=fan");
    Thread.sleep(2 * POLL.toMillis());
    assertTrue(!e2e.slurmNode("wt-0").orElseThrow().drainFlag(), "nothing watches yet");
    e2e.startWorker();
    Await.until(
        "wt-0 drained after the restart",
        LIMIT,
        EVERY,
        () -> e2e.slurmNode("wt-0").orElseThrow(),
        n -> n.drainFlag() && "tandem:k8s-cordon: while the watchers were away".equals(n.reason()));
    Await.until(
        "wt-1 annotated after the restart",
        LIMIT,
        EVERY,
        () -> annotation("wt-1", SlurmMirror.REASON),
        "fan"::equals);

    // The reverse while it is dead again: uncordon and the administrator's resume.
    e2e.killWorker();
    uncordon(k8sNode);
    scontrol("wt-1", "State=RESUME");
    e2e.startWorker();
    Await.until(
        "wt-0 undrained after the second restart",
        LIMIT,
        EVERY,
        () -> e2e.slurmNode("wt-0").orElseThrow(),
        n -> !n.drainFlag() && n.reason() == null);
    Await.until(
        "wt-1 mirror cleared after the second restart",
        LIMIT,
        EVERY,
        () -> annotation("wt-1", SlurmMirror.REASON),
        a -> a == null);
  }

  /** The benchmark's code path, a few trials, so it cannot rot; figures are not judged here. */
  @Test
  void benchmarkRuns() throws Exception {
    PrintWriter out = new PrintWriter(System.out, true);
    WatchersBench.Result r =
        new WatchersBench(e2e.k8s, e2e.slurm, "default", "wt-0", POLL, out).run(3);
    assertEquals(0, r.failed());
    assertEquals(3, r.cordonToDrainMs().size());
    assertEquals(3, r.slurmToPodMs().size());
  }

  // ---- helpers ----

  private static String nodeOf(String pod) {
    return e2e.pod(pod).orElseThrow().getSpec().getNodeName();
  }

  private static void cordon(String node) {
    e2e.cordon(node);
  }

  private static void uncordon(String node) {
    e2e.uncordon(node);
  }

  private static void annotate(String node, String reason) {
    e2e.annotateCordonReason(node, reason);
  }

  private static void scontrol(String node, String update) throws Exception {
    e2e.scontrol(node, update);
  }

  private static void resume(String node) {
    try {
      scontrol(node, "State=RESUME");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String annotation(String pod, String key) {
    Map<String, String> a = e2e.pod(pod).orElseThrow().getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }

  private static Optional<PodCondition> condition(String pod) {
    Pod p = e2e.pod(pod).orElseThrow();
    return p.getStatus().getConditions().stream()
        .filter(c -> SlurmMirror.CONDITION.equals(c.getType()))
        .findFirst();
  }

  /** The real slurmd process the local kubelet runs for this pod. */
  /**
   * The slurmd of this test's own Slurm: the machine may run other local Slurm instances (their own
   * {@code TANDEM_SLURM_DIR}) whose node names overlap, so match the config path too.
   */
  private static long slurmdPid(String pod) {
    String conf =
        System.getenv().getOrDefault("TANDEM_SLURM_DIR", "/var/tmp/tandem-slurm")
            + "/etc/slurm.conf";
    return ProcessHandle.allProcesses()
        .filter(
            p -> {
              String cmd = p.info().commandLine().orElse("");
              return cmd.contains("slurmd")
                  && cmd.contains("-N " + pod + " ")
                  && cmd.contains(conf);
            })
        .findFirst()
        .orElseThrow(() -> new AssertionError("no slurmd process for " + pod))
        .pid();
  }

  private static void signal(long pid, String sig) throws Exception {
    e2e.run(List.of("kill", "-" + sig, Long.toString(pid)));
  }
}
