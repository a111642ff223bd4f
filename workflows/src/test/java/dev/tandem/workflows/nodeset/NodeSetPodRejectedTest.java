package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.NodeSummary;
import dev.tandem.workflows.testing.WorkflowTestBase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A spec revision whose pod the cluster refuses (400 strict decoding error, 422 invalid): the
 * NodeSet says InvalidSpec/PodRejected in one line, the revision is not tried again, the nodes keep
 * serving the last good revision, and a new spec is tried.
 */
class NodeSetPodRejectedTest extends WorkflowTestBase {
  static final String WHY = "unknown field \"spec.containers[0].resizePolicy\"";

  @Test
  void aRejectedRevisionIsReportedNotRetriedAndTheLastGoodOneServes() {
    cluster.rejectRevision("b", WHY);
    NodeSetWorkflow wf = startNodeSet("rej", spec(1, 2, "a"));
    await("2 ready at a", 120, () -> allReady(wf, 2));

    wf.specChanged(spec(2, 2, "b"));
    await(
        "InvalidSpec PodRejected",
        300,
        () -> {
          Condition c = condition(Condition.INVALID_SPEC);
          return c != null && c.statusTrue() && PodRejection.REASON.equals(c.reason());
        });
    String msg = condition(Condition.INVALID_SPEC).message();
    assertFalse(msg.contains("\n"), msg);
    assertTrue(msg.length() <= NodeSetConditions.MAX_LINE, msg);
    assertTrue(msg.contains("revision b") && msg.contains("resizePolicy"), msg);
    assertTrue(msg.contains("nodes stay at revision a"), msg);

    await(
        "both nodes back in service at a",
        300,
        () ->
            allReady(wf, 2)
                && wf.status().nodes().stream().allMatch(n -> "a".equals(n.revision())));
    // A long time later: still no storm of creates at b, and both nodes still serve at a.
    env.sleep(Duration.ofHours(2));
    assertEquals(1, cluster.ensurePodCalls("b"), "the rejected revision is tried once");
    assertTrue(allReady(wf, 2));
    assertTrue(wf.status().nodes().stream().allMatch(n -> "a".equals(n.revision())));
    NodeSetStatusView st = cluster.status("default/rej");
    assertEquals(2, st.readyReplicas());
    Condition degraded = condition(Condition.DEGRADED);
    assertFalse(degraded.statusTrue(), degraded.message());
    assertEquals(PodRejection.REASON, condition(Condition.PROGRESSING).reason());

    // Scaling up while b is rejected starts the new node at a.
    wf.specChanged(spec(3, 3, "b"));
    await("3 ready", 300, () -> allReady(wf, 3));
    assertEquals("a", nodeStatus("rej-2").revision());
    assertEquals(1, cluster.ensurePodCalls("b"));

    // A new spec (new revision) clears the rejection and rolls out.
    wf.specChanged(spec(4, 3, "c"));
    await(
        "all at c",
        600,
        () ->
            allReady(wf, 3)
                && wf.status().nodes().stream().allMatch(n -> "c".equals(n.revision())));
    Condition valid = condition(Condition.INVALID_SPEC);
    assertFalse(valid.statusTrue(), valid.message());
    assertEquals(List.of(), cluster.violations());
  }

  @Test
  void withNoGoodRevisionNodesWaitWithoutRetryingUntilTheSpecChanges() {
    cluster.rejectRevision("bad", WHY);
    NodeSetWorkflow wf = startNodeSet("new", spec(1, 2, "bad"));
    await(
        "InvalidSpec PodRejected",
        300,
        () -> {
          Condition c = condition("new", Condition.INVALID_SPEC);
          return c != null && PodRejection.REASON.equals(c.reason());
        });
    env.sleep(Duration.ofHours(2));
    assertEquals(2, cluster.ensurePodCalls("bad"), "one refused create per node, no retries");
    assertTrue(cluster.pods().isEmpty());
    assertNodesShowTheRejection(wf);

    // A later invalid spec: InvalidSpec says both, and each node still shows its refused pod.
    wf.specChanged(
        new NodeSetSpecView(
            2,
            "uid-ns",
            -3,
            template("bad"),
            dev.tandem.workflows.model.UpdateStrategy.rolling("1"),
            null,
            null,
            List.of()));
    await(
        "InvalidSpec for the invalid spec",
        300,
        () -> "InvalidSpec".equals(condition("new", Condition.INVALID_SPEC).reason()));
    String msg = condition("new", Condition.INVALID_SPEC).message();
    assertTrue(msg.contains("spec.replicas must be between 0"), msg);
    assertTrue(
        msg.contains("revision bad: the cluster rejected pod") && msg.contains("resizePolicy"),
        msg);
    assertEquals(1, msg.split("resizePolicy", -1).length - 1, "the rejection once: " + msg);
    env.sleep(Duration.ofMinutes(10));
    assertNodesShowTheRejection(wf);

    wf.specChanged(spec(2, 2, "good"));
    await(
        "2 ready at good",
        300,
        () ->
            allReady(wf, 2)
                && wf.status().nodes().stream().allMatch(n -> "good".equals(n.revision())));
    assertFalse(condition("new", Condition.INVALID_SPEC).statusTrue());
    assertEquals(NodePhase.READY, nodeStatus("new-0").phase());
  }

  /** Every node waits in provisioning and its PROBLEM (tandem status) names the refused pod. */
  private void assertNodesShowTheRejection(NodeSetWorkflow wf) {
    List<NodeSummary> nodes = wf.status().nodes();
    assertEquals(2, nodes.size());
    for (NodeSummary n : nodes) {
      assertEquals(NodePhase.PROVISIONING, n.phase(), n.toString());
      assertTrue(
          n.problem() != null
              && n.problem().contains("the cluster rejected the pod at revision bad: " + WHY),
          n.toString());
    }
    Condition degraded = condition("new", Condition.DEGRADED);
    assertTrue(degraded.statusTrue(), degraded.message());
    assertTrue(
        degraded.message().startsWith("new-0, new-1: the cluster rejected"), degraded.message());
  }

  private Condition condition(String type) {
    return condition("rej", type);
  }

  private Condition condition(String name, String type) {
    NodeSetStatusView st = cluster.status("default/" + name);
    return st == null ? null : st.condition(type);
  }
}
