package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tandem.dev.Manifests;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.Owners;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.NodePhase;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 15: deleting a NodeSet never kills a running job, whatever propagation policy {@code
 * kubectl delete} uses. The slurmd pods carry a second owner, the NodeSet CRD, so Kubernetes'
 * garbage collector never deletes them; Tandem's finalizer drains the nodes, waits for the job and
 * deletes the pods itself. Through the whole stack: real slurmd processes, a real Slurm job, the
 * local API's garbage collector, and the real kubectl (fabric8 with the same propagation policy if
 * kubectl is absent; the log says which).
 */
class NodeSetDeletionE2EIT {
  private static final String SET = "e2e";
  private static final Duration LIMIT = Duration.ofSeconds(90);
  private static final Duration EVERY = Duration.ofMillis(250);
  private static final Path KUBECTL = Path.of("/usr/bin/kubectl");

  /** Ends a job may never have here: each means Slurm or Kubernetes killed it. */
  private static final Set<String> KILLED = Set.of("CANCELLED", "NODE_FAIL", "REQUEUED", "FAILED");

  @AutoClose private static E2EStack e2e;

  @BeforeAll
  static void start() throws Exception {
    e2e = E2EStack.start(Map.of());
  }

  /** Whatever a failed case left: its job cancelled, its NodeSet deleted and gone. */
  @AfterEach
  void cleanUp() {
    if (lastJob > 0) {
      try {
        e2e.scancel(lastJob);
      } catch (Exception e) {
        // already ended
      }
    }
    if (e2e.nodeSet(SET) != null) {
      e2e.deleteNodeSet(SET, LIMIT);
    }
  }

  private long lastJob = -1;

  @ParameterizedTest(name = "--cascade={0}")
  @ValueSource(strings = {"foreground", "background", "orphan"})
  void aDeletedNodeSetWaitsForItsRunningJob(String cascade) throws Exception {
    e2e.apply(Manifests.nodeSet(SET, 2, "slurmd:v1", ""));
    e2e.awaitPhase(SET + "-0", NodePhase.READY);
    e2e.awaitPhase(SET + "-1", NodePhase.READY);
    for (String n : new String[] {SET + "-0", SET + "-1"}) {
      Await.until(n + " idle in Slurm", LIMIT, EVERY, () -> idleInSlurm(n), b -> b);
      assertOwnedAndManagedByTandem(e2e.pod(n).orElseThrow());
    }

    // A job of ~25 s on SET-1; SET-0 stays idle.
    String busy = SET + "-1";
    String idle = SET + "-0";
    long job = e2e.sbatch(busy, 25);
    lastJob = job;
    Await.until(
        "job " + job + " running", LIMIT, EVERY, () -> e2e.slurm.getJob(job), j -> j.running());
    // Let the node report its job before the deletion (as NodeLifecycleE2EIT does).
    Await.until(
        busy + " reported busy",
        LIMIT,
        EVERY,
        () -> e2e.nodeSetStatus(SET).nodes(),
        ns ->
            ns.stream()
                .anyMatch(
                    n ->
                        n.pod().equals(busy)
                            && (n.slurmState().startsWith("alloc")
                                || n.slurmState().startsWith("mixed"))));
    String busyUid = e2e.pod(busy).orElseThrow().getMetadata().getUid();

    delete(cascade);

    // While the job runs: the busy pod is not being deleted, the job keeps running.
    Set<String> jobStates = new LinkedHashSet<>();
    boolean idleGoneWhileJobRan = false;
    long deadline = System.nanoTime() + LIMIT.toNanos();
    while (true) {
      SlurmJob j = e2e.slurm.getJob(job);
      jobStates.add(j.state());
      if (KILLED.contains(j.state()) || j.restartCount() > 0) {
        fail("job " + job + " was killed: " + j.state() + " (restarts " + j.restartCount() + ")");
      }
      if (!j.active()) {
        break;
      }
      Optional<Pod> p = e2e.pod(busy);
      assertTrue(p.isPresent(), "--cascade=" + cascade + ": " + busy + " deleted under its job");
      assertEquals(busyUid, p.get().getMetadata().getUid(), busy + " replaced under its job");
      if (j.running()) {
        assertNull(
            p.get().getMetadata().getDeletionTimestamp(),
            "--cascade=" + cascade + ": " + busy + " is being deleted while its job runs");
      }
      if (j.running() && e2e.pod(idle).isEmpty()) {
        idleGoneWhileJobRan = true;
      }
      if (System.nanoTime() > deadline) {
        fail("job " + job + " still " + j.state() + " after " + LIMIT);
      }
      Thread.sleep(EVERY.toMillis());
    }
    assertEquals("COMPLETED", e2e.slurm.getJob(job).state(), "seen: " + jobStates);
    assertTrue(idleGoneWhileJobRan, "the idle " + idle + " went while the job still ran");
    assertTrue(
        e2e.nodeStatus(idle).timeline().stream().anyMatch(t -> t.event().equals("drained")),
        idle + " was drained by Tandem before its pod was deleted");

    // Then Tandem drains and deletes the busy node, and releases the NodeSet.
    Await.until(
        "NodeSet released and its pods gone",
        LIMIT,
        EVERY,
        () -> e2e.nodeSet(SET) == null && e2e.pod(idle).isEmpty() && e2e.pod(busy).isEmpty(),
        b -> b);
    for (String n : new String[] {idle, busy}) {
      Await.until(n + " gone from Slurm", LIMIT, EVERY, () -> e2e.slurmNode(n).isEmpty(), b -> b);
    }
  }

  /** {@code kubectl delete nodeset SET --cascade=C --wait=false}, or fabric8 without kubectl. */
  private static void delete(String cascade) throws Exception {
    if (Files.isExecutable(KUBECTL)) {
      Path cache = Files.createTempDirectory("kubectl-cache-");
      System.out.println(
          "NodeSetDeletionE2EIT: kubectl delete nodeset " + SET + " --cascade=" + cascade);
      e2e.kubectl(
          "--cache-dir",
          cache.toString(),
          "delete",
          "nodeset",
          SET,
          "--cascade=" + cascade,
          "--wait=false");
    } else {
      System.out.println(
          "NodeSetDeletionE2EIT: no "
              + KUBECTL
              + "; deleting with fabric8, propagationPolicy "
              + cascade);
      NodeSetResources.generic(e2e.k8s)
          .inNamespace("default")
          .withName(SET)
          .withPropagationPolicy(
              switch (cascade) {
                case "foreground" -> DeletionPropagation.FOREGROUND;
                case "orphan" -> DeletionPropagation.ORPHAN;
                default -> DeletionPropagation.BACKGROUND;
              })
          .delete();
    }
  }

  /**
   * The worker created the pod with both owners ({@code Owners}), and the API server recorded the
   * write under field manager {@code tandem} (derived from the worker's User-Agent).
   */
  private static void assertOwnedAndManagedByTandem(Pod pod) {
    String crdUid =
        e2e.k8s
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName(Owners.CRD_NAME)
            .get()
            .getMetadata()
            .getUid();
    String nodeSetUid = e2e.nodeSet(SET).getMetadata().getUid();
    assertEquals(
        Owners.of(SET, nodeSetUid, crdUid),
        pod.getMetadata().getOwnerReferences(),
        pod.getMetadata().getName());
    Optional<ManagedFieldsEntry> creator =
        pod.getMetadata().getManagedFields().stream()
            .filter(m -> m.getSubresource() == null || m.getSubresource().isEmpty())
            .filter(m -> String.valueOf(m.getFieldsV1()).contains("ownerReferences"))
            .findFirst();
    assertTrue(creator.isPresent(), String.valueOf(pod.getMetadata().getManagedFields()));
    assertEquals("tandem", creator.get().getManager());
  }

  private static boolean idleInSlurm(String node) {
    Optional<SlurmNode> n = e2e.slurmNode(node);
    return n.isPresent() && "idle".equals(n.get().state()) && n.get().flags().isEmpty();
  }
}
