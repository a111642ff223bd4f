package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.remediation.RemediationPolicy;
import dev.tandem.workflows.remediation.RemediationTrigger;
import dev.tandem.workflows.remediation.TriggerKind;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which remediation triggers a Kubernetes node or a Slurm node calls for. */
class RemediationTriggersTest {
  static final RemediationPolicy ON = RemediationPolicy.defaults();

  static NodeCondition cond(String type, String status, String message) {
    return new NodeConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(type + "Reason")
        .withMessage(message)
        .withLastHeartbeatTime(Instant.now().toString())
        .build();
  }

  static Node node(String name, NodeCondition... conditions) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewStatus()
        .withConditions(conditions)
        .endStatus()
        .build();
  }

  static SlurmNodeView slurm(String name, String state, Set<String> flags, String reason) {
    return new SlurmNodeView(name, true, state, flags, reason, "root", null, Instant.EPOCH);
  }

  @Test
  void readyFalseOrUnknownIsNotReadyAndPolicyConditionsTrueAreConditions() {
    Map<String, RemediationTrigger> t =
        RemediationTriggers.forNode(
            node(
                "k1",
                cond("Ready", "Unknown", "Kubelet stopped posting node status."),
                cond("GpuUnhealthy", "True", "Xid 79 on GPU 3"),
                cond("KernelDeadlock", "False", "fine"),
                cond("MemoryPressure", "True", "not in the policy")),
            ON);
    assertEquals(List.of("NotReady", "Condition:GpuUnhealthy"), List.copyOf(t.keySet()));
    assertEquals(
        RemediationTrigger.of(
            TriggerKind.NOT_READY,
            "Ready=Unknown: Kubelet stopped posting node status.",
            "node-watcher"),
        t.get("NotReady"));
    assertEquals(
        "Condition: GpuUnhealthy=True: Xid 79 on GPU 3", t.get("Condition:GpuUnhealthy").cause());

    assertEquals(
        Set.of("NotReady"),
        RemediationTriggers.forNode(node("k1", cond("Ready", "False", "")), ON).keySet());
    assertTrue(RemediationTriggers.forNode(node("k1", cond("Ready", "True", "ok")), ON).isEmpty());
  }

  @Test
  void aDisabledPolicyCallsForNothing() {
    Node bad = node("k1", cond("Ready", "False", "down"), cond("GpuUnhealthy", "True", "Xid"));
    assertTrue(RemediationTriggers.forNode(bad, RemediationPolicy.disabled()).isEmpty());
    assertNull(
        RemediationTriggers.forSlurmNode(
            slurm("gpu-a-0", "down", Set.of(), "Not responding"),
            "k1",
            RemediationPolicy.disabled()));
  }

  @Test
  void onlyThePolicysConditionsCount() {
    RemediationPolicy custom =
        new RemediationPolicy(true, 0, List.of("NicDown"), null, null, null, 0, null, null);
    Node n = node("k1", cond("GpuUnhealthy", "True", "x"), cond("NicDown", "True", "eth0"));
    assertEquals(Set.of("Condition:NicDown"), RemediationTriggers.forNode(n, custom).keySet());
  }

  @Test
  void healthChangesWithStatusesNotWithMessagesOrHeartbeats() {
    String a = RemediationTriggers.health(node("k", cond("Ready", "True", "a")), ON);
    String b = RemediationTriggers.health(node("k", cond("Ready", "True", "b")), ON);
    String c = RemediationTriggers.health(node("k", cond("Ready", "False", "b")), ON);
    String d =
        RemediationTriggers.health(
            node("k", cond("Ready", "True", "b"), cond("GpuUnhealthy", "True", "x")), ON);
    assertEquals(a, b);
    assertNotEquals(a, c);
    assertNotEquals(a, d);
  }

  @Test
  void aSlurmDrainOrDownWithAHardwareReasonNotTandemsTriggersOncePerReason() {
    var t =
        RemediationTriggers.forSlurmNode(
            slurm("gpu-a-0", "down", Set.of(), "Not responding"), "k1", ON);
    assertEquals("k1|Not responding", t.getKey());
    assertEquals(
        RemediationTrigger.of(
            TriggerKind.SLURM_REASON, "gpu-a-0 down: Not responding", "slurm-watcher"),
        t.getValue());

    var nhc =
        RemediationTriggers.forSlurmNode(
            slurm("gpu-a-1", "idle", Set.of("DRAIN"), "nhc: GPU check failed"), "k2", ON);
    assertEquals("SlurmReason: gpu-a-1 drained: nhc: GPU check failed", nhc.getValue().cause());

    // Tandem's own drain, no matching pattern, a word boundary, or no drain at all: nothing.
    assertNull(
        RemediationTriggers.forSlurmNode(
            slurm("gpu-a-0", "idle", Set.of("DRAIN"), "tandem:remediation: Xid 79"), "k1", ON));
    assertNull(
        RemediationTriggers.forSlurmNode(
            slurm("gpu-a-0", "idle", Set.of("DRAIN"), "disk replacement"), "k1", ON));
    assertNull(
        RemediationTriggers.forSlurmNode(
            slurm("gpu-a-0", "idle", Set.of("DRAIN"), "XIDS audit"), "k1", ON));
    assertNull(
        RemediationTriggers.forSlurmNode(
            slurm("gpu-a-0", "idle", Set.of(), "Not responding"), "k1", ON));
    assertNull(
        RemediationTriggers.forSlurmNode(
            new SlurmNodeView("gpu-a-0", false, "unknown", Set.of(), null, null, null, null),
            "k1",
            ON));
  }

  @Test
  void aPatternThatDoesNotCompileMatchesNothingAndStopsNothing() {
    assertFalse(RemediationTriggers.matches("Kill task failed", List.of("([unclosed")));
    assertTrue(RemediationTriggers.matches("Kill task failed", List.of("([unclosed", "KILL TASK")));
  }

  @Test
  void theNodesPolicyIsTheFirstEnabledOneOfItsNodeSetsSorted() {
    RemediationPolicy b =
        new RemediationPolicy(true, 60, List.of("B"), null, null, null, 0, null, null);
    RemediationPolicy c =
        new RemediationPolicy(true, 90, List.of("C"), null, null, null, 0, null, null);
    NodeSetRef a = new NodeSetRef("default", "a");
    NodeSetRef bb = new NodeSetRef("default", "b");
    NodeSetRef cc = new NodeSetRef("default", "c");
    Map<NodeSetRef, RemediationPolicy> known =
        Map.of(a, RemediationPolicy.disabled(), bb, b, cc, c);
    assertEquals(b, RemediationTriggers.policyOf(List.of(cc, a, bb), known::get));
    assertEquals(c, RemediationTriggers.policyOf(List.of(cc, a), known::get));
    assertFalse(RemediationTriggers.policyOf(List.of(a), known::get).enabled());
    assertFalse(
        RemediationTriggers.policyOf(List.of(new NodeSetRef("x", "y")), known::get).enabled());
  }
}
