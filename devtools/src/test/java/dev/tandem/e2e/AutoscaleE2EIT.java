package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dev.Manifests;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.testing.Await;
import io.fabric8.kubernetes.api.model.Event;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code spec.autoscaling} through the whole stack: a NodeSet at zero on partition {@code gpu} (its
 * nodes are dynamic and join it by their feature) grows for real {@code sbatch} jobs and for a pod
 * scheduled through Slurm, runs them, and goes back to zero after its idle time, never removing a
 * node while a job runs on it.
 */
class AutoscaleE2EIT {
  private static final String SET = "auto";
  private static final Duration LIMIT = Duration.ofSeconds(120);
  private static final Duration EVERY = Duration.ofMillis(250);
  @AutoClose private static E2EStack e2e;

  @BeforeAll
  static void start() throws Exception {
    e2e = E2EStack.start(Map.of());
  }

  /** Jobs no node can run, cancelled after the test. */
  private long wide;

  private long big;

  @AfterEach
  void deleteTheNodeSet() throws Exception {
    for (long job : new long[] {wide, big}) {
      if (job != 0) {
        e2e.scancel(job);
      }
    }
    if (e2e.nodeSet(SET) != null) {
      e2e.deleteNodeSet(SET, LIMIT);
    }
  }

  private static void applyAtZero() throws Exception {
    e2e.apply(
        Manifests.nodeSet(
            SET,
            0,
            "slurmd:v1",
            "  slurm:\n    partitions: [gpu]\n    features: [h100]\n"
                + "  autoscaling:\n    minReplicas: 0\n    maxReplicas: 2\n"
                + "    idleTime: 20s\n    scaleUpDelay: 1s\n"));
  }

  private static int specReplicas() {
    Object spec = e2e.nodeSet(SET).getAdditionalProperties().get("spec");
    return ((Number) ((Map<?, ?>) spec).get("replicas")).intValue();
  }

  private static List<String> pods() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      if (e2e.pod(SET + "-" + i).isPresent()) {
        out.add(SET + "-" + i);
      }
    }
    return out;
  }

  private static long sbatch(int seconds) throws Exception {
    return e2e.sbatchWith("-p", "gpu", "-N", "1", "--exclusive", "--wrap", "sleep " + seconds);
  }

  private static List<String> events(String reason) {
    return e2e.k8s.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> SET.equals(e.getInvolvedObject().getName()))
        .filter(e -> reason.equals(e.getReason()))
        .map(Event::getMessage)
        .toList();
  }

  @Test
  void fromZeroForQueuedJobsAndBackToZeroOnceIdle() throws Exception {
    applyAtZero();
    long t0 = System.nanoTime();
    long a = sbatch(20);
    long b = sbatch(20);
    for (long j : List.of(a, b)) {
      Await.until(
          "job " + j + " running", LIMIT, EVERY, () -> e2e.slurm.getJob(j), SlurmJob::running);
    }
    System.out.printf(
        "AutoscaleE2EIT: two jobs submitted to partition gpu with no node, running after %.1f s%n",
        (System.nanoTime() - t0) / 1e9);
    assertEquals(2, specReplicas(), "spec.replicas set by the autoscaler");
    assertTrue(
        events("Autoscaled").stream().anyMatch(m -> m.contains("0 → 2")),
        events("Autoscaled").toString());
    // A job wider than the nodes (they registered with this machine's CPUs) waits on the
    // partition for ever: it is unfit, so it keeps no node once the others are done.
    wide = e2e.sbatchWith("-p", "gpu", "-N", "1", "-c", "512", "--wrap", "sleep 1");
    awaitUnfit(wide, 1);

    // While the jobs run, their nodes stay.
    Await.until(
        "both jobs ended",
        LIMIT,
        EVERY,
        () -> {
          boolean over = !e2e.slurm.getJob(a).running() && !e2e.slurm.getJob(b).running();
          if (!over) {
            assertEquals(List.of(SET + "-0", SET + "-1"), pods(), "a node with a job was removed");
          }
          return over;
        },
        done -> done);
    for (long j : List.of(a, b)) {
      SlurmJob job = e2e.slurm.getJob(j);
      assertEquals("COMPLETED", job.state(), "job " + j);
      assertEquals(0, job.restartCount(), "job " + j + " never requeued");
    }
    // Idle for 20 s: both given back, though the wide job still waits.
    Await.until("back to zero", LIMIT, EVERY, AutoscaleE2EIT::pods, List::isEmpty);
    assertEquals(0, specReplicas());
    assertTrue(e2e.slurm.getJob(wide).pending(), "job " + wide + " still waits");
    // With no node in the partition Slurm takes a job asking more memory than the nodes had (with
    // nodes it refuses it at submit): the NodeSet still knows its nodes' size and starts none.
    Await.until(
        "the NodeSet's nodes deleted in Slurm",
        LIMIT,
        EVERY,
        () -> e2e.slurmNode(SET + "-0").isEmpty() && e2e.slurmNode(SET + "-1").isEmpty(),
        gone -> gone);
    big = e2e.sbatchWith("-p", "gpu", "-N", "1", "--mem=4000000", "--wrap", "sleep 1");
    awaitUnfit(big, 2);
    assertEquals(0, specReplicas());
    assertEquals(List.of(), pods());
  }

  /** Waits for the NodeSet to count {@code job}, the {@code count}th, as one it cannot run. */
  private static void awaitUnfit(long job, int count) {
    Await.until(
        "the NodeSet to count job " + job + " as one no node of it can run",
        LIMIT,
        EVERY,
        AutoscaleE2EIT::autoscaledCondition,
        m -> m.contains(count + " job(s) no node of this NodeSet can run"));
  }

  /** The message of the NodeSet's {@code Autoscaled} condition, or "". */
  @SuppressWarnings("unchecked")
  private static String autoscaledCondition() {
    Object status = e2e.nodeSet(SET).getAdditionalProperties().get("status");
    if (!(status instanceof Map<?, ?> st) || !(st.get("conditions") instanceof List<?> cs)) {
      return "";
    }
    return cs.stream()
        .map(c -> (Map<String, Object>) c)
        .filter(c -> "Autoscaled".equals(c.get("type")))
        .map(c -> String.valueOf(c.get("message")))
        .findFirst()
        .orElse("");
  }

  @Test
  void aPodScheduledThroughSlurmGetsANodeTheSameWay() throws Exception {
    applyAtZero();
    SchedPods pods = new SchedPods(e2e);
    pods.create("trainer", Map.of("tandem.dev/partition", "gpu"));
    var bound = pods.awaitBound("trainer");
    Optional<io.fabric8.kubernetes.api.model.Pod> node = e2e.pod(SET + "-0");
    assertTrue(node.isPresent(), "a node started for the pod");
    assertEquals(node.get().getSpec().getNodeName(), bound.getSpec().getNodeName());
    assertEquals(1, specReplicas());
    e2e.k8s.pods().inNamespace("default").withName("trainer").delete();
    Await.until("back to zero", LIMIT, EVERY, AutoscaleE2EIT::pods, List::isEmpty);
  }
}
