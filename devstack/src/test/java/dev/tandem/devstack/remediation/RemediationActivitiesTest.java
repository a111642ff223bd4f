package dev.tandem.devstack.remediation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.tandem.activities.RebootActions;
import dev.tandem.activities.RemediationActivitiesImpl;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.remediation.LadderStep;
import dev.tandem.workflows.remediation.NodeHealth;
import dev.tandem.workflows.remediation.RemediationAction;
import dev.tandem.workflows.remediation.RemediationPolicy;
import dev.tandem.workflows.remediation.RemediationTarget;
import dev.tandem.workflows.remediation.ReplaceMode;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.temporal.client.WorkflowClient;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RemediationActivitiesImpl} against the local Kubernetes API; Slurm is a Mockito mock here
 * (RemediationCheckIT uses the real one). The budget's signals are in RemediationBudgetSignalsTest.
 */
class RemediationActivitiesTest extends RemediationApiBase {
  SlurmClient slurm;
  RemediationActivitiesImpl activities;

  @BeforeEach
  void newActivities() {
    slurm = mock(SlurmClient.class);
    when(slurm.getNode(anyString())).thenAnswer(i -> idle(i.getArgument(0)));
    activities =
        new RemediationActivitiesImpl(
            client,
            slurm,
            mock(WorkflowClient.class),
            RebootActions.parse("annotation", client, Clock.systemUTC()),
            0,
            Clock.systemUTC());
  }

  static SlurmNode slurmNode(String name, String state, Set<String> flags, String reason) {
    return new SlurmNode(
        name,
        state,
        flags,
        reason,
        null,
        null,
        2,
        0,
        1000,
        null,
        null,
        List.of("low"),
        List.of(),
        "127.0.0.1",
        "host",
        Instant.now(),
        null,
        "22.05.8");
  }

  static SlurmNode idle(String name) {
    return slurmNode(name, "idle", Set.of(), null);
  }

  @Test
  void targetFindsTandemsSlurmdPodsOnTheNodeAndTheFirstNodeSetWithAPolicy() {
    String k8s = unique("gpu-host");
    String other = unique("other-host");
    node(k8s, Map.of("rack", "r1"), Map.of("Ready", "True"));
    node(other, Map.of(), Map.of("Ready", "True"));
    String a = unique("a");
    String b = unique("b");
    nodeSet(client, a, null);
    nodeSet(client, b, "{\"steps\":[{\"action\":\"Reboot\",\"timeout\":\"15m\"}]}");
    slurmdPod(client, b + "-0", b, 0, k8s);
    slurmdPod(client, a + "-1", a, 1, k8s);
    slurmdPod(client, a + "-0", a, 0, other);
    // Not Tandem's: no nodeset label.
    client
        .pods()
        .inNamespace(ns)
        .resource(
            new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewMetadata()
                .withName(unique("daemon"))
                .endMetadata()
                .withNewSpec()
                .withNodeName(k8s)
                .addNewContainer()
                .withName("c")
                .withImage("x")
                .endContainer()
                .endSpec()
                .build())
        .create();

    RemediationTarget t = activities.target(k8s);

    assertTrue(t.exists());
    assertEquals(
        List.of(new NodeRef(ns, a, a + "-1", 1), new NodeRef(ns, b, b + "-0", 0)), t.slurmNodes());
    assertEquals(List.of(ns + "/" + a, ns + "/" + b), t.nodeSets());
    assertEquals("r1", t.labels().get("rack"));
    assertTrue(t.policy().enabled(), "b's policy: a has none");
    assertEquals(List.of(new LadderStep(RemediationAction.REBOOT, 900)), t.policy().steps());
  }

  @Test
  void targetOfAMissingNodeHasNothingAndNoPolicy() {
    RemediationTarget t = activities.target(unique("nowhere"));
    assertFalse(t.exists());
    assertEquals(List.of(), t.slurmNodes());
    assertEquals(RemediationPolicy.disabled(), t.policy());
  }

  private RemediationTarget healthySetup(String k8s, String set) {
    node(k8s, Map.of(), Map.of("Ready", "True", "GpuUnhealthy", "False"));
    nodeSet(client, set, "{}");
    slurmdPod(client, set + "-0", set, 0, k8s);
    return activities.target(k8s);
  }

  @Test
  void checkIsHealthyOnlyWhenNodeConditionsPodsAndSlurmAllAre() {
    String k8s = unique("host");
    String set = unique("h");
    RemediationTarget t = healthySetup(k8s, set);
    assertEquals(List.of(), activities.check(t).problems());

    setConditions(client, k8s, Map.of("Ready", "True", "GpuUnhealthy", "True"), null);
    assertEquals(
        List.of("GpuUnhealthy=True (GpuUnhealthy is True)"), activities.check(t).problems());

    setConditions(client, k8s, Map.of("Ready", "Unknown"), null);
    assertEquals(List.of("Ready=Unknown (Ready is Unknown)"), activities.check(t).problems());
    setConditions(client, k8s, Map.of(), null);
    assertEquals(List.of("Ready=missing"), activities.check(t).problems());
    setConditions(client, k8s, Map.of("Ready", "True"), null);
    assertTrue(activities.check(t).healthy());
  }

  @Test
  void checkFailsClosedOnEverySlurmDoubt() {
    String k8s = unique("host");
    String set = unique("s");
    RemediationTarget t = healthySetup(k8s, set);
    String name = set + "-0";
    doReturn(slurmNode(name, "down", Set.of(), "Not responding")).when(slurm).getNode(name);
    assertEquals(List.of(name + ": DOWN (Not responding)"), activities.check(t).problems());
    doReturn(slurmNode(name, "idle", Set.of("NOT_RESPONDING"), null)).when(slurm).getNode(name);
    assertEquals(List.of(name + ": NOT_RESPONDING"), activities.check(t).problems());
    doReturn(slurmNode(name, "future", Set.of(), null)).when(slurm).getNode(name);
    assertEquals(List.of(name + ": not registered (future)"), activities.check(t).problems());
    doThrow(new SlurmNotFoundException("no such node")).when(slurm).getNode(name);
    assertEquals(List.of(name + ": unknown to Slurm"), activities.check(t).problems());
    doThrow(new SlurmUnavailableException("connection refused")).when(slurm).getNode(name);
    assertEquals(
        List.of(name + ": cannot read it from Slurm (connection refused)"),
        activities.check(t).problems());
    // Remediation's own drain is expected, not a problem.
    doReturn(slurmNode(name, "idle", Set.of("DRAIN"), "tandem:remediation: x"))
        .when(slurm)
        .getNode(name);
    assertTrue(activities.check(t).healthy());
  }

  @Test
  void checkNeedsTheSlurmdPodRunningAndTheNodeToExist() {
    String k8s = unique("host");
    String set = unique("p");
    RemediationTarget t = healthySetup(k8s, set);
    activities.restartSlurmdPods(k8s, t.slurmNodes());
    assertEquals(
        List.of("pod " + ns + "/" + set + "-0: being deleted"), activities.check(t).problems());
    client.pods().inNamespace(ns).withName(set + "-0").withGracePeriod(0).delete();
    NodeHealth withNode = activities.check(t);
    assertEquals(List.of("pod " + ns + "/" + set + "-0: does not exist"), withNode.problems());
    assertFalse(withNode.nodeGone());
    client.nodes().withName(k8s).delete();
    NodeHealth h = activities.check(t);
    assertEquals("node " + k8s + ": does not exist", h.problems().get(0));
    assertTrue(h.nodeGone(), "a Replace counts a gone node by this flag");
    assertFalse(h.healthyAfterReplace(), "its slurmd pod is still missing: " + h.problems());
  }

  @Test
  void restartDeletesOnlyPodsStillOnTheNodeAndOnlyOnce() {
    String k8s = unique("host");
    String elsewhere = unique("elsewhere");
    String set = unique("r");
    node(k8s, Map.of(), Map.of("Ready", "True"));
    node(elsewhere, Map.of(), Map.of("Ready", "True"));
    nodeSet(client, set, "{}");
    slurmdPod(client, set + "-0", set, 0, k8s);
    slurmdPod(client, set + "-1", set, 1, elsewhere);
    List<NodeRef> refs =
        List.of(NodeRef.of(ns, set, 0), NodeRef.of(ns, set, 1), NodeRef.of(ns, set, 2));

    assertEquals(List.of(ns + "/" + set + "-0"), activities.restartSlurmdPods(k8s, refs));
    Pod p0 = client.pods().inNamespace(ns).withName(set + "-0").get();
    assertNotNull(p0.getMetadata().getDeletionTimestamp(), "graceful: the kubelet stops slurmd");
    assertNull(
        client
            .pods()
            .inNamespace(ns)
            .withName(set + "-1")
            .get()
            .getMetadata()
            .getDeletionTimestamp(),
        "a pod on another node is not touched");
    assertEquals(List.of(), activities.restartSlurmdPods(k8s, refs), "asking again: nothing new");
  }

  @Test
  void rebootByAnnotationIsDoneWhenTheAgentEchoesTheToken() {
    String k8s = unique("host");
    node(k8s, Map.of(), Map.of("Ready", "True"));
    activities.requestReboot(k8s, "t-1", "GpuUnhealthy");
    activities.requestReboot(k8s, "t-1", "GpuUnhealthy");
    Node n = client.nodes().withName(k8s).get();
    assertEquals("t-1", n.getMetadata().getAnnotations().get(Names.ANNOTATION_REBOOT_REQUESTED));
    assertFalse(activities.rebootDone(k8s, "t-1"));
    annotate(k8s, Names.ANNOTATION_REBOOTED, "t-0");
    assertFalse(activities.rebootDone(k8s, "t-1"), "an older reboot is not this one");
    annotate(k8s, Names.ANNOTATION_REBOOTED, "t-1");
    assertTrue(activities.rebootDone(k8s, "t-1"));
  }

  static void annotate(String node, String key, String value) {
    client
        .nodes()
        .withName(node)
        .edit(
            n -> {
              n.getMetadata().getAnnotations().put(key, value);
              return n;
            });
  }

  @Test
  void replaceMarkCordonsAndKeepsAnAdministratorsReason() {
    String k8s = unique("host");
    node(k8s, Map.of(), Map.of("Ready", "True"));
    activities.replaceNode(k8s, ReplaceMode.MARK, "tandem:remediation: GpuUnhealthy");
    Node n = client.nodes().withName(k8s).get();
    assertEquals(true, n.getSpec().getUnschedulable());
    assertEquals(
        "tandem:remediation: GpuUnhealthy",
        n.getMetadata().getAnnotations().get("tandem.dev/cordon-reason"));
    assertEquals(
        "tandem:remediation: GpuUnhealthy",
        n.getMetadata().getAnnotations().get(Names.ANNOTATION_REPLACE_REQUESTED));

    String admin = unique("admin");
    node(admin, Map.of(), Map.of("Ready", "True"));
    client
        .nodes()
        .withName(admin)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"spec\":{\"unschedulable\":true},"
                + "\"metadata\":{\"annotations\":{\"tandem.dev/cordon-reason\":\"RMA 42\"}}}");
    activities.replaceNode(admin, ReplaceMode.MARK, "tandem:remediation: x");
    assertEquals(
        "RMA 42",
        client
            .nodes()
            .withName(admin)
            .get()
            .getMetadata()
            .getAnnotations()
            .get("tandem.dev/cordon-reason"));
  }

  /**
   * Only the Node object goes: its pods are left to Kubernetes' pod garbage collector, which
   * deletes the pods of a node gone for 40 s (longer than this test waits).
   */
  @Test
  void replaceDeleteRemovesTheNodeAndLeavesItsPodsToThePodGc() {
    String k8s = unique("host");
    String set = unique("d");
    node(k8s, Map.of(), Map.of("Ready", "True"));
    nodeSet(client, set, "{}");
    slurmdPod(client, set + "-0", set, 0, k8s);
    activities.replaceNode(k8s, ReplaceMode.DELETE, "tandem:remediation: x");
    assertNull(client.nodes().withName(k8s).get());
    Pod left = client.pods().inNamespace(ns).withName(set + "-0").get();
    assertNull(left.getMetadata().getDeletionTimestamp(), "not deleted by Tandem");
    activities.replaceNode(k8s, ReplaceMode.DELETE, "again"); // a retry finds it gone: fine
  }

  @Test
  void nodeEventIsRecordedInDefaultForTheNode() {
    String k8s = unique("host");
    node(k8s, Map.of(), Map.of("Ready", "True"));
    activities.nodeEvent(k8s, "Warning", "RemediationFailed", "every step failed");
    List<Event> events =
        client.v1().events().inNamespace("default").list().getItems().stream()
            .filter(e -> k8s.equals(e.getInvolvedObject().getName()))
            .toList();
    assertEquals(1, events.size());
    Event e = events.get(0);
    assertEquals("Node", e.getInvolvedObject().getKind());
    assertEquals(
        client.nodes().withName(k8s).get().getMetadata().getUid(), e.getInvolvedObject().getUid());
    assertNull(e.getInvolvedObject().getNamespace());
    assertEquals("Warning", e.getType());
    assertEquals("RemediationFailed", e.getReason());
    // Best effort: a node that does not exist still gets its event, and nothing throws.
    activities.nodeEvent(unique("ghost"), "Normal", "X", "y");
  }
}
