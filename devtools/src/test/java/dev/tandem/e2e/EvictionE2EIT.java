package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 15, part 1, through the whole stack with the real {@code kubectl drain}: the NodeSet's
 * PodDisruptionBudget lets the idle slurmd pod go within seconds (once Tandem drained it in Slurm)
 * and holds the busy one until its real Slurm job ends; both come back Pending elsewhere, and after
 * {@code kubectl uncordon} on the same node, in service. A budget someone loosened is put back.
 * {@code kubectl delete node} waits for the running job too.
 */
class EvictionE2EIT {
  private static final String SET = "e2e";
  private static final String K8S_NODE = "local-1";
  private static final Duration LIMIT = Duration.ofSeconds(60);
  private static final Duration EVERY = Duration.ofMillis(200);
  private static final String KUBECTL = "/usr/bin/kubectl";
  private static E2EStack e2e;
  private static long job = -1;

  @BeforeAll
  static void start() throws Exception {
    e2e = E2EStack.start(Map.of());
  }

  @AfterAll
  static void stop() {
    if (e2e == null) {
      return;
    }
    try {
      // After a failure: leave this Slurm's e2e-* nodes free for the next suite.
      if (e2e.nodeSet(SET) != null) {
        if (job > 0) {
          e2e.scancel(job);
        }
        e2e.uncordon(K8S_NODE);
        e2e.deleteNodeSet(SET, LIMIT);
      }
    } catch (Exception | AssertionError e) {
      System.out.println("EvictionE2EIT: cleanup failed: " + e);
    } finally {
      e2e.close();
    }
  }

  /** Two nodes whose pods may only run on local-1. */
  private static String manifest() {
    return "apiVersion: tandem.dev/v1alpha1\nkind: NodeSet\nmetadata:\n  name: "
        + SET
        + "\n  namespace: default\nspec:\n  replicas: 2\n  template:\n    spec:\n"
        + "      nodeSelector:\n        kubernetes.io/hostname: "
        + K8S_NODE
        + "\n      containers:\n      - name: slurmd\n        image: slurmd:v1\n";
  }

  private static String uid(String pod) {
    return e2e.pod(pod).map(p -> p.getMetadata().getUid()).orElse(null);
  }

  private static boolean inService(String node) {
    Optional<SlurmNode> n = e2e.slurmNode(node);
    return e2e.nodeStatus(node).phase() == NodePhase.READY
        && n.isPresent()
        && "idle".equals(n.get().state())
        && !n.get().drainFlag();
  }

  @Test
  void kubectlDrainWaitsForTheRunningJobAndTheNodesComeBackAfterUncordon() throws Exception {
    assertTrue(new File(KUBECTL).canExecute(), "this test runs the real kubectl at " + KUBECTL);
    long t0 = System.nanoTime();
    e2e.apply(manifest());
    for (String n : List.of("e2e-0", "e2e-1")) {
      Await.until(n + " in service", LIMIT, EVERY, () -> inService(n), b -> b);
      assertEquals(K8S_NODE, e2e.pod(n).orElseThrow().getSpec().getNodeName());
    }
    Await.until(
        "PodDisruptionBudget",
        LIMIT,
        EVERY,
        () ->
            e2e.k8s
                .policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace("default")
                .withName(SET + "-slurm-jobs")
                .get(),
        b -> b != null);
    // Someone loosens the budget: Tandem puts it back at once (BudgetWatcher, SlurmJobsBudget).
    var budget =
        e2e.k8s
            .policy()
            .v1()
            .podDisruptionBudget()
            .inNamespace("default")
            .withName(SET + "-slurm-jobs");
    budget.edit(
        b ->
            new io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder(b)
                .editSpec()
                .withNewMaxUnavailable(1)
                .endSpec()
                .build());
    Await.until(
        "PodDisruptionBudget repaired",
        LIMIT,
        EVERY,
        () -> budget.get().getSpec().getMaxUnavailable(),
        m -> m != null && Integer.valueOf(0).equals(m.getIntVal()));
    String idleUid = uid("e2e-0");
    String busyUid = uid("e2e-1");
    job = e2e.sbatch("e2e-1", 25);
    Await.until("job running", LIMIT, EVERY, () -> e2e.slurm.getJob(job), SlurmJob::running);

    Path out = e2e.dir.resolve("kubectl-drain.out");
    Process drain =
        new ProcessBuilder(
                KUBECTL,
                "--kubeconfig",
                e2e.kubeconfig().toString(),
                "--cache-dir",
                e2e.dir.resolve("kubectl-cache").toString(),
                "drain",
                K8S_NODE,
                "--ignore-daemonsets",
                "--timeout=150s")
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    try {
      long drainStart = System.nanoTime();
      // The idle pod: Tandem drains it in Slurm (cordon), labels it evictable, kubectl evicts it.
      Await.until(
          "idle pod evicted",
          Duration.ofSeconds(30),
          EVERY,
          () -> Optional.ofNullable(uid("e2e-0")),
          u -> !u.equals(Optional.of(idleUid)));
      long idleGone = secondsSince(drainStart);
      System.out.println("EvictionE2EIT: idle pod evicted " + idleGone + " s after kubectl drain");
      assertTrue(idleGone <= 25, "idle pod evicted after " + idleGone + " s");

      // The busy pod stays while its job runs; kubectl is told why.
      while (e2e.slurm.getJob(job).running()) {
        Pod busy = e2e.pod("e2e-1").orElseThrow();
        assertEquals(busyUid, busy.getMetadata().getUid(), "busy pod evicted while its job ran");
        assertEquals(null, busy.getMetadata().getDeletionTimestamp(), "busy pod being deleted");
        assertTrue(secondsSince(drainStart) < 60, "job still running after 60 s");
        Thread.sleep(250);
      }
      String said = Files.readString(out, StandardCharsets.UTF_8);
      assertTrue(said.contains("disruption budget"), "kubectl output:\n" + said);
      assertCompletedOnce(job);

      // Then the busy pod goes too and kubectl drain finishes.
      assertTrue(drain.waitFor(60, TimeUnit.SECONDS), "kubectl drain did not finish");
      said = Files.readString(out, StandardCharsets.UTF_8);
      System.out.println("EvictionE2EIT: kubectl drain said:\n" + said);
      assertEquals(0, drain.exitValue(), "kubectl drain failed:\n" + said);
      assertNotEquals(busyUid, uid("e2e-1"));
    } finally {
      drain.destroyForcibly();
    }

    // Both recreated at once, Pending on no node, and each node says what it waits for.
    for (String n : List.of("e2e-0", "e2e-1")) {
      Await.until(
          n + " recreated and Pending",
          LIMIT,
          EVERY,
          () -> e2e.pod(n),
          p ->
              p.isPresent()
                  && p.get().getMetadata().getDeletionTimestamp() == null
                  && "Pending".equals(p.get().getStatus().getPhase())
                  && p.get().getSpec().getNodeName() == null);
      Await.until(
          n + " says it waits for an unschedulable pod",
          LIMIT,
          EVERY,
          () -> e2e.nodeStatus(n),
          s ->
              s.phase() == NodePhase.PROVISIONING
                  && s.problem() != null
                  && s.problem().contains("Pending"));
      NodeStatus s = e2e.nodeStatus(n);
      System.out.println("EvictionE2EIT: " + n + " problem: " + s.problem());
      assertTrue(s.timeline().stream().anyMatch(t -> t.event().equals("pod-lost")));
      assertTrue(s.timeline().stream().anyMatch(t -> t.event().equals("evictable")));
    }
    assertNotEquals(idleUid, uid("e2e-0"));

    // Uncordon: the pods run on local-1 again and the nodes serve (no hold left behind).
    long uncordon = System.nanoTime();
    e2e.run(
        List.of(
            KUBECTL,
            "--kubeconfig",
            e2e.kubeconfig().toString(),
            "--cache-dir",
            e2e.dir.resolve("kubectl-cache").toString(),
            "uncordon",
            K8S_NODE));
    for (String n : List.of("e2e-0", "e2e-1")) {
      Await.until(
          n + " running on " + K8S_NODE,
          LIMIT,
          EVERY,
          () -> e2e.pod(n),
          p ->
              p.isPresent()
                  && K8S_NODE.equals(p.get().getSpec().getNodeName())
                  && "Running".equals(p.get().getStatus().getPhase()));
      Await.until(n + " back in service", LIMIT, EVERY, () -> inService(n), b -> b);
      assertTrue(e2e.nodeStatus(n).holds().isEmpty(), "holds: " + e2e.nodeStatus(n).holds());
      assertFalse(
          e2e.pod(n).orElseThrow().getMetadata().getLabels().containsKey("tandem.dev/evictable"));
    }
    System.out.println(
        "EvictionE2EIT: back in service "
            + secondsSince(uncordon)
            + " s after uncordon; whole scenario "
            + secondsSince(t0)
            + " s");
    assertNotNull(e2e.slurmNode("e2e-0").orElse(null));

    e2e.deleteNodeSet(SET, LIMIT);
  }

  /**
   * {@code kubectl delete node} with a job running: Tandem's finalizer keeps the Node while its
   * Slurm nodes drain and the job runs on (longer than the pod garbage collector's 40 s for pods of
   * a missing Node, which would end it), then releases it. Registered again (as a restarted kubelet
   * does), the node serves again.
   */
  @Test
  void kubectlDeleteNodeWaitsForTheRunningJob() throws Exception {
    e2e.apply(manifest());
    for (String n : List.of("e2e-0", "e2e-1")) {
      Await.until(n + " in service", LIMIT, EVERY, () -> inService(n), b -> b);
    }
    Await.until(
        "Tandem's finalizer on " + K8S_NODE,
        LIMIT,
        EVERY,
        () -> e2e.k8s.nodes().withName(K8S_NODE).get().getMetadata().getFinalizers(),
        f -> f != null && f.contains("tandem.dev/slurm-jobs"));
    String busyUid = uid("e2e-1");
    job = e2e.sbatch("e2e-1", 60);
    Await.until("job running", LIMIT, EVERY, () -> e2e.slurm.getJob(job), SlurmJob::running);

    long deleted = System.nanoTime();
    e2e.kubectl("delete", "node", K8S_NODE, "--wait=false");
    Await.until(
        "both Slurm nodes drained",
        LIMIT,
        EVERY,
        () -> List.of("e2e-0", "e2e-1").stream().map(e2e::slurmNode).toList(),
        l -> l.stream().allMatch(n -> n.isPresent() && n.get().drainFlag()));
    assertTrue(
        e2e.slurmNode("e2e-1").orElseThrow().reason().contains("being deleted"),
        "reason: " + e2e.slurmNode("e2e-1").orElseThrow().reason());
    while (e2e.slurm.getJob(job).running()) {
      Node node = e2e.k8s.nodes().withName(K8S_NODE).get();
      assertNotNull(node, K8S_NODE + " deleted while the job ran");
      assertNotNull(node.getMetadata().getDeletionTimestamp());
      Pod busy = e2e.pod("e2e-1").orElseThrow();
      assertEquals(busyUid, busy.getMetadata().getUid(), "busy pod replaced while its job ran");
      assertNull(busy.getMetadata().getDeletionTimestamp(), "busy pod deleted while its job ran");
      assertTrue(secondsSince(deleted) < 120, "job still running after 120 s");
      Thread.sleep(250);
    }
    assertCompletedOnce(job);
    job = -1;
    Await.until(
        K8S_NODE + " released",
        LIMIT,
        EVERY,
        () -> Optional.ofNullable(e2e.k8s.nodes().withName(K8S_NODE).get()),
        Optional::isEmpty);
    System.out.println(
        "EvictionE2EIT: " + K8S_NODE + " gone " + secondsSince(deleted) + " s after the delete");

    e2e.stack.kubelet().registerNodes();
    for (String n : List.of("e2e-0", "e2e-1")) {
      Await.until(
          n + " back in service on " + K8S_NODE,
          Duration.ofSeconds(120),
          EVERY,
          () ->
              K8S_NODE.equals(e2e.pod(n).map(p -> p.getSpec().getNodeName()).orElse(null))
                  && inService(n),
          b -> b);
    }
    e2e.deleteNodeSet(SET, LIMIT);
  }

  /** Waits for the job's final state: COMPLETED, never requeued. */
  private static void assertCompletedOnce(long id) {
    Await.until(
        "job ended",
        LIMIT,
        EVERY,
        () -> e2e.slurm.getJob(id).state(),
        // COMPLETING is the end on its way (epilog, a loaded machine): wait for the final state.
        s -> !"RUNNING".equals(s) && !"COMPLETING".equals(s));
    SlurmJob ended = e2e.slurm.getJob(id);
    assertEquals("COMPLETED", ended.state(), "job " + ended);
    assertEquals(0, ended.restartCount(), "never requeued");
  }

  private static long secondsSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000_000L;
  }
}
