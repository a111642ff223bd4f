package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.cli.TandemCli;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.remediation.RemediationState;
import dev.tandem.workflows.remediation.RemediationStep;
import dev.tandem.workflows.remediation.RemediationTimelineEntry;
import dev.tandem.workflows.remediation.RemediationWorkflow;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 11 through the whole stack (real Slurm, local Kubernetes API and kubelet, the worker as its
 * own process): a GPU health condition on a Kubernetes node starts its remediation.
 *
 * <ol>
 *   <li>The condition clears after the slurmd pod was restarted: the Slurm node drains with the
 *       remediation reason, its pod is recreated, a health-check job runs on it in a maintenance
 *       reservation, and it returns to idle.
 *   <li>The condition stays: the ladder escalates to a reboot (the local kubelet restarts the pods
 *       on that node for real) and ends Failed, the Slurm node left drained with the reason, a
 *       Warning event on the Node. The worker is killed (SIGKILL) while the reboot rung waits: the
 *       restarted one goes on at that step without asking for a second reboot. The runbook's {@code
 *       tandem undrain --owner remediation} then brings it back.
 * </ol>
 *
 * Both read {@code tandem history <k8s-node>}, which lists each step with its timestamp.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RemediationE2EIT {
  private static final String SET = "e2e";
  private static final String POD = "e2e-0";
  private static final String K8S_NODE = "local-2";
  private static final String CONDITION = "GpuUnhealthy";
  private static final Duration LIMIT = Duration.ofSeconds(90);
  private static final Duration EVERY = Duration.ofMillis(250);
  private static final Pattern STAMPED =
      Pattern.compile("(?m)^.*\\d{4}-\\d\\d-\\d\\d[T ]\\d\\d:\\d\\d:\\d\\d.*$");
  private static E2EStack e2e;

  @BeforeAll
  static void start() throws Exception {
    e2e = E2EStack.start(Map.of());
    e2e.apply(
        manifest("120s", "60s", "    healthCheck: {script: \"hostname; exit 0\", timeout: 60s}\n"));
    Await.until(POD + " in service", LIMIT, EVERY, () -> inService(), b -> b);
    assertEquals(K8S_NODE, e2e.pod(POD).orElseThrow().getSpec().getNodeName());
  }

  @AfterAll
  static void stop() {
    if (e2e == null) {
      return;
    }
    try {
      setCondition(false);
      if (e2e.nodeSet(SET) != null) {
        e2e.deleteNodeSet(SET, LIMIT);
      }
    } catch (Exception | AssertionError e) {
      System.out.println("RemediationE2EIT: cleanup failed: " + e);
    } finally {
      e2e.close();
    }
  }

  /**
   * One node pinned to local-2, remediation on for GpuUnhealthy; fast re-checks and rungs of the
   * given timeouts (what a lab would tune down). The budget is written: by default a NodeSet's only
   * node is never taken out automatically.
   */
  private static String manifest(String restartTimeout, String rebootTimeout, String more) {
    return "apiVersion: tandem.dev/v1alpha1\nkind: NodeSet\nmetadata:\n  name: "
        + SET
        + "\n  namespace: default\nspec:\n  replicas: 1\n  template:\n    spec:\n"
        + "      nodeSelector:\n        kubernetes.io/hostname: "
        + K8S_NODE
        + "\n      containers:\n      - name: slurmd\n        image: slurmd:v1\n"
        + "  remediation:\n"
        + "    conditions: ["
        + CONDITION
        + "]\n"
        + "    recheckEvery: 1s\n"
        + "    budget: {maxPerNodeSet: 1}\n"
        + "    jobs: {timeout: 30s, onTimeout: Force}\n"
        + "    steps:\n"
        + "    - {action: RestartSlurmd, timeout: "
        + restartTimeout
        + "}\n"
        + "    - {action: Reboot, timeout: "
        + rebootTimeout
        + "}\n"
        + more;
  }

  @Test
  @Order(1)
  void aRestartedSlurmdAndAClearedConditionBringTheNodeBack() throws Exception {
    String uid = uid();
    setCondition(true);
    Await.until(
        POD + " drained by the remediation",
        LIMIT,
        EVERY,
        () -> e2e.slurmNode(POD),
        n -> n.isPresent() && n.get().drainFlag() && reason(n).startsWith("tandem:remediation:"));
    Await.until(
        "slurmd pod restarted",
        LIMIT,
        EVERY,
        RemediationE2EIT::uid,
        u -> u != null && !u.equals(uid));
    assertEquals(RemediationStep.RESTARTING_SLURMD, remediation().step());

    setCondition(false);
    RemediationState done =
        Await.until(
            "remediation recovered",
            LIMIT,
            EVERY,
            RemediationE2EIT::remediation,
            s -> s.step().terminal());
    assertEquals(RemediationStep.RECOVERED, done.step(), done.toString());
    Await.until(POD + " back in service", LIMIT, EVERY, () -> inService(), b -> b);

    String history = history();
    for (RemediationStep s :
        List.of(
            RemediationStep.WAITING_FOR_SLOT,
            RemediationStep.DRAINING,
            RemediationStep.RESTARTING_SLURMD,
            RemediationStep.HEALTH_CHECKING,
            RemediationStep.RETURNING,
            RemediationStep.RECOVERED)) {
      assertTrue(stampedLine(history, s.label()), s.label() + " with a timestamp in:\n" + history);
    }
    assertTrue(!history.contains("Rebooting"), "no reboot was needed:\n" + history);
    assertTrue(history.contains("health-check-passed"), "the job ran in Slurm:\n" + history);
  }

  @Test
  @Order(2)
  void aConditionThatStaysEscalatesToARebootAndEndsFailed() throws Exception {
    e2e.apply(manifest("15s", "25s", ""));
    Await.until(POD + " in service", LIMIT, EVERY, () -> inService(), b -> b);
    int restartsBefore = restarts();
    setCondition(true);
    // A crash mid-ladder: the worker is killed while the reboot rung waits for its re-check; the
    // restarted one resumes at the same step and does not ask for the reboot again.
    Await.until(
        "reboot requested",
        LIMIT,
        EVERY,
        RemediationE2EIT::remediation,
        s -> s.step() == RemediationStep.REBOOTING && actions(s, RemediationStep.REBOOTING) == 1);
    long killed = e2e.killWorker();
    e2e.awaitWorkerReady();
    assertNotEquals(killed, e2e.workerPid(), "a new worker process");
    RemediationState done =
        Await.until(
            "remediation failed",
            Duration.ofMinutes(3),
            Duration.ofSeconds(1),
            RemediationE2EIT::remediation,
            s -> s.step().terminal() && s.startedAt() != null);
    assertEquals(RemediationStep.FAILED, done.step(), done.toString());
    List<RemediationStep> steps =
        done.timeline().stream().map(RemediationTimelineEntry::step).distinct().toList();
    assertTrue(steps.contains(RemediationStep.REBOOTING), steps.toString());
    assertEquals(
        1, actions(done, RemediationStep.REBOOTING), "one reboot asked: " + done.timeline());

    // The local kubelet carried out the reboot: acknowledged, and the pods on the node restarted.
    Node node = e2e.k8s.nodes().withName(K8S_NODE).get();
    Map<String, String> a = node.getMetadata().getAnnotations();
    assertTrue(a.containsKey(Names.ANNOTATION_REBOOT_REQUESTED), a.toString());
    assertEquals(a.get(Names.ANNOTATION_REBOOT_REQUESTED), a.get(Names.ANNOTATION_REBOOTED));
    assertTrue(restarts() > restartsBefore, "container restarts after the reboot: " + restarts());

    // Left drained, with the reason a human reads; an event on the Node says it failed.
    Optional<SlurmNode> n = e2e.slurmNode(POD);
    assertTrue(n.isPresent() && n.get().drainFlag(), n.toString());
    assertTrue(reason(n).startsWith("tandem:remediation:"), reason(n));
    List<Event> events =
        e2e.k8s.v1().events().inNamespace("default").list().getItems().stream()
            .filter(e -> K8S_NODE.equals(e.getInvolvedObject().getName()))
            .filter(e -> "Node".equals(e.getInvolvedObject().getKind()))
            .toList();
    assertTrue(
        events.stream()
            .anyMatch(
                e -> "Warning".equals(e.getType()) && "RemediationFailed".equals(e.getReason())),
        events.stream()
            .map(e -> e.getReason() + ": " + e.getMessage())
            .collect(Collectors.joining("\n")));

    String history = history();
    for (RemediationStep s :
        List.of(
            RemediationStep.RESTARTING_SLURMD, RemediationStep.REBOOTING, RemediationStep.FAILED)) {
      assertTrue(stampedLine(history, s.label()), s.label() + " with a timestamp in:\n" + history);
    }

    // The runbook: the machine is repaired by hand, then the remediation's drain is lifted.
    setCondition(false);
    String out = tandem("undrain", POD, "--owner", "remediation");
    assertTrue(out.contains("remediation drain released"), out);
    Await.until(POD + " back in service", LIMIT, EVERY, () -> inService(), b -> b);
  }

  // ---- helpers ----

  private static RemediationState remediation() {
    return e2e.temporal
        .newWorkflowStub(RemediationWorkflow.class, Names.remediationWorkflowId(K8S_NODE))
        .status();
  }

  /** How many times the ladder acted in {@code step}. */
  private static long actions(RemediationState s, RemediationStep step) {
    return s.timeline().stream()
        .filter(e -> e.step() == step && "action".equals(e.event()))
        .count();
  }

  /** What a GPU health agent does: sets (or clears) the condition in the Node's status. */
  private static void setCondition(boolean bad) {
    e2e.setNodeCondition(
        K8S_NODE,
        CONDITION,
        bad ? "XidError" : null,
        bad ? "Xid 79 on GPU 3: fallen off the bus" : null);
  }

  private static String uid() {
    return e2e.pod(POD).map(p -> p.getMetadata().getUid()).orElse(null);
  }

  /** Container restarts of every pod on the node. */
  private static int restarts() {
    return e2e.k8s.pods().inNamespace("default").list().getItems().stream()
        .filter(p -> p.getSpec() != null && K8S_NODE.equals(p.getSpec().getNodeName()))
        .map(Pod::getStatus)
        .filter(s -> s != null && s.getContainerStatuses() != null)
        .flatMap(s -> s.getContainerStatuses().stream())
        .mapToInt(ContainerStatus::getRestartCount)
        .sum();
  }

  private static String reason(Optional<SlurmNode> n) {
    return n.map(SlurmNode::reason).orElse("");
  }

  private static boolean inService() {
    Optional<SlurmNode> n = e2e.slurmNode(POD);
    return e2e.nodeStatus(POD).phase() == NodePhase.READY
        && n.isPresent()
        && "idle".equals(n.get().state())
        && !n.get().drainFlag();
  }

  private static String history() {
    return tandem("history", K8S_NODE);
  }

  private static boolean stampedLine(String text, String word) {
    return STAMPED.matcher(text).results().anyMatch(m -> m.group().contains(word));
  }

  /** {@code tandem ...} in this JVM; its whole output (fails on a non-zero exit). */
  private static String tandem(String... args) {
    String[] all =
        java.util.stream.Stream.concat(
                java.util.Arrays.stream(args),
                java.util.stream.Stream.of("--address", e2e.stack.temporalAddress()))
            .toArray(String[]::new);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = TandemCli.run(new PrintWriter(out, true), new PrintWriter(err, true), all);
    assertEquals(0, code, String.join(" ", args) + ": " + err + out);
    assertNotEquals("", out.toString());
    return out.toString();
  }
}
