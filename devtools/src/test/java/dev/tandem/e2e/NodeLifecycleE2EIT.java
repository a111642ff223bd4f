package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dev.Manifests;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSummary;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 3's end-to-end scenario, through the whole stack: a NodeSet applied to the local API
 * becomes real slurmd processes registered in the real Slurm; a busy node chosen for scale-down
 * stays until its real job ends; an image change drains, replaces and returns the remaining node.
 */
class NodeLifecycleE2EIT {
  private static final Duration LIMIT = Duration.ofSeconds(90);
  private static final Duration EVERY = Duration.ofMillis(250);
  @AutoClose private static E2EStack e2e;

  @BeforeAll
  static void start() throws Exception {
    e2e = E2EStack.start(Map.of());
  }

  private static boolean idleInSlurm(String node) {
    Optional<SlurmNode> n = e2e.slurmNode(node);
    return n.isPresent() && "idle".equals(n.get().state()) && n.get().flags().isEmpty();
  }

  private static boolean allReady(String set, int n) {
    NodeSetSnapshot s = e2e.nodeSetStatus(set);
    return s.nodes().size() == n && s.nodes().stream().allMatch(x -> x.phase() == NodePhase.READY);
  }

  @Test
  void applyScaleDownAroundARunningJobThenRollANewImage() throws Exception {
    e2e.apply(Manifests.nodeSet("e2e", 3, "slurmd:v1", ""));
    Await.until("3 nodes ready", LIMIT, EVERY, () -> allReady("e2e", 3), b -> b);
    for (String n : List.of("e2e-0", "e2e-1", "e2e-2")) {
      Await.until(n + " idle in Slurm", LIMIT, EVERY, () -> idleInSlurm(n), b -> b);
      assertTrue(e2e.pod(n).orElseThrow().getStatus().getPhase().equals("Running"));
    }
    String rev1 = e2e.nodeSetStatus("e2e").status().updateRevision();

    // Real batch jobs on e2e-1 and e2e-2; e2e-0 stays idle.
    long j1 = e2e.sbatch("e2e-1", 600);
    long j2 = e2e.sbatch("e2e-2", 600);
    for (long j : List.of(j1, j2)) {
      Await.until(
          "job " + j + " running", LIMIT, EVERY, () -> e2e.slurm.getJob(j), SlurmJob::running);
    }
    // Let the nodes report what runs on them before choosing victims.
    Await.until(
        "busy nodes reported",
        LIMIT,
        EVERY,
        () -> e2e.nodeSetStatus("e2e").nodes(),
        ns ->
            ns.stream()
                    .filter(
                        n ->
                            n.slurmState().startsWith("alloc")
                                || n.slurmState().startsWith("mixed"))
                    .count()
                == 2);

    // Scale 3 -> 1: victims are the idle e2e-0 and then the highest ordinal, e2e-2 (busy).
    e2e.patchSpec("e2e", "{\"replicas\":1}");
    Await.until("e2e-0 pod gone", LIMIT, EVERY, () -> e2e.pod("e2e-0").isEmpty(), b -> b);
    Await.until(
        "e2e-2 draining",
        LIMIT,
        EVERY,
        () -> e2e.slurmNode("e2e-2"),
        n -> n.isPresent() && n.get().drainFlag());
    assertTrue(e2e.slurmNode("e2e-2").get().reason().startsWith("tandem:scale-down: "));
    Thread.sleep(5_000);
    assertTrue(e2e.pod("e2e-2").isPresent(), "a node is never deleted while its job runs");
    assertEquals(NodePhase.DRAINING, e2e.nodeStatus("e2e-2").phase());
    assertTrue(e2e.slurm.getJob(j2).running(), "the job was left alone");

    e2e.scancel(j2);
    Await.until("e2e-2 pod gone", LIMIT, EVERY, () -> e2e.pod("e2e-2").isEmpty(), b -> b);
    Await.until(
        "e2e-2 gone from Slurm", LIMIT, EVERY, () -> e2e.slurmNode("e2e-2").isEmpty(), b -> b);
    Await.until(
        "e2e-0 gone from Slurm", LIMIT, EVERY, () -> e2e.slurmNode("e2e-0").isEmpty(), b -> b);
    Await.until(
        "only e2e-1 left",
        LIMIT,
        EVERY,
        () -> e2e.nodeSetStatus("e2e").nodes().stream().map(NodeSummary::pod).toList(),
        l -> l.equals(List.of("e2e-1")));
    assertEquals(NodePhase.READY, e2e.nodeStatus("e2e-1").phase());

    // Image change: the remaining node drains (its job must end first), is replaced, and serves.
    e2e.scancel(j1);
    Await.until("e2e-1 idle", LIMIT, EVERY, () -> idleInSlurm("e2e-1"), b -> b);
    String uid = e2e.pod("e2e-1").orElseThrow().getMetadata().getUid();
    e2e.patchSpec(
        "e2e",
        "{\"template\":{\"spec\":{\"containers\":[{\"name\":\"slurmd\",\"image\":\"slurmd:v2\"}]}}}");
    Await.until(
        "e2e-1 replaced at the new revision",
        LIMIT,
        EVERY,
        () -> e2e.nodeStatus("e2e-1"),
        s -> s.phase() == NodePhase.READY && !rev1.equals(s.revision()));
    assertNotEquals(uid, e2e.pod("e2e-1").orElseThrow().getMetadata().getUid());
    assertTrue(
        e2e.nodeStatus("e2e-1").timeline().stream().anyMatch(t -> t.event().equals("drained")),
        "drained before replacement");
    Await.until("e2e-1 idle again", LIMIT, EVERY, () -> idleInSlurm("e2e-1"), b -> b);
    String rev2 = e2e.nodeSetStatus("e2e").status().updateRevision();
    assertNotEquals(rev1, rev2);
    Await.until(
        "status written",
        LIMIT,
        EVERY,
        () -> e2e.nodeSet("e2e"),
        r -> {
          Map<?, ?> st = (Map<?, ?>) r.getAdditionalProperties().get("status");
          return st != null
              && rev2.equals(st.get("currentRevision"))
              && Integer.valueOf(1).equals(st.get("readyReplicas"));
        });

    e2e.deleteNodeSet("e2e", LIMIT);
    Await.until(
        "e2e-1 gone from Slurm", LIMIT, EVERY, () -> e2e.slurmNode("e2e-1").isEmpty(), b -> b);
  }
}
