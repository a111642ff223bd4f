package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.NodeSummary;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.client.WorkflowStub;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NodeSetWorkflowTest extends WorkflowTestBase {

  @Test
  void scalesUpThenDownAndDeletesABusyVictimOnlyAfterItsJobEnds() {
    NodeSetWorkflow wf = startNodeSet("gpu", spec(1, 0, "a"));
    await("status written", 30, () -> cluster.status("default/gpu") != null);
    assertEquals(0, cluster.status("default/gpu").replicas());

    wf.specChanged(spec(2, 4, "a"));
    await("4 ready", 120, () -> allReady(wf, 4));
    assertEquals(4, cluster.pods().size());

    // Jobs on gpu-1..3; gpu-0 idle. Victims for 4 -> 2: idle first (gpu-0), then the highest
    // ordinal (gpu-3), which runs a job.
    cluster.startJob("gpu-1");
    cluster.startJob("gpu-2");
    long job3 = cluster.startJob("gpu-3");
    env.sleep(java.time.Duration.ofSeconds(25)); // a resync, so reports show who is busy

    wf.specChanged(spec(3, 2, "a"));
    await("gpu-0 deleted", 120, () -> phaseIs("gpu-0", NodePhase.DELETED));
    await("gpu-3 draining", 60, () -> phaseIs("gpu-3", NodePhase.DRAINING));
    env.sleep(java.time.Duration.ofMinutes(30));
    assertTrue(cluster.pods().containsKey("gpu-3"), "busy victim must stay while its job runs");
    assertEquals(NodePhase.DRAINING, nodeStatus("gpu-3").phase());
    assertTrue(cluster.slurmNode("gpu-3").reason().startsWith("tandem:scale-down: "));

    cluster.endJob(job3);
    await("gpu-3 deleted", 120, () -> phaseIs("gpu-3", NodePhase.DELETED));
    assertEquals(Set.of("gpu-1", "gpu-2"), cluster.pods().keySet());
    assertFalse(cluster.slurmNode("gpu-3").known(), "Slurm node record removed");
    await("status shows 2", 60, () -> cluster.status("default/gpu").replicas() == 2);
    assertEquals(List.of(), cluster.violations());
  }

  @Test
  void rollingUpdateTakesOneNodeAtATimeIdleFirstAndWaitsForTheBusyOne() {
    NodeSetWorkflow wf = startNodeSet("roll", spec(1, 4, "a"));
    await("4 ready", 120, () -> allReady(wf, 4));
    long job = cluster.startJob("roll-1");
    env.sleep(java.time.Duration.ofSeconds(25));
    cluster.track(Set.of("roll-0", "roll-1", "roll-2", "roll-3"));

    wf.specChanged(spec(2, 4, "b"));
    await(
        "idle nodes updated",
        300,
        () ->
            List.of("roll-0", "roll-2", "roll-3").stream()
                .allMatch(
                    p -> "b".equals(nodeStatus(p).revision()) && phaseIs(p, NodePhase.READY)));
    await("busy node draining", 60, () -> phaseIs("roll-1", NodePhase.DRAINING));
    env.sleep(java.time.Duration.ofMinutes(20));
    assertEquals("a", nodeStatus("roll-1").revision(), "a busy node waits for its job");
    assertEquals(1, cluster.podCreations("roll-1"));

    cluster.endJob(job);
    await("all at b", 300, () -> "b".equals(nodeStatus("roll-1").revision()) && allReady(wf, 4));
    assertEquals(1, cluster.maxOutOfService(), "maxUnavailable 1 honoured");
    List<String> creates =
        cluster.calls().stream()
            .filter(c -> c.startsWith("createPod") && c.endsWith(" b"))
            .toList();
    assertEquals("createPod roll-1 b", creates.get(creates.size() - 1), "busy node updated last");
    await(
        "status updated",
        60,
        () -> {
          NodeSetStatusView st = cluster.status("default/roll");
          return st.updatedReplicas() == 4 && "b".equals(st.currentRevision());
        });
    assertFalse(cluster.status("default/roll").condition(Condition.PROGRESSING).statusTrue());
    assertEquals(List.of(), cluster.violations());
  }

  @Test
  void invalidSpecIsReportedAndTheLastValidSpecStays() {
    NodeSetWorkflow wf = startNodeSet("bad", spec(1, 2, "a"));
    await("2 ready", 120, () -> allReady(wf, 2));
    NodeSetSpecView bad =
        new NodeSetSpecView(
            2,
            "uid-ns",
            -3,
            template("a"),
            dev.tandem.workflows.model.UpdateStrategy.rolling("lots"),
            null,
            null,
            List.of());
    wf.specChanged(bad);
    await(
        "InvalidSpec",
        60,
        () -> {
          Condition c = cluster.status("default/bad").condition(Condition.INVALID_SPEC);
          return c != null && c.statusTrue();
        });
    String msg = cluster.status("default/bad").condition(Condition.INVALID_SPEC).message();
    assertTrue(msg.contains("spec.replicas must be between 0"), msg);
    assertTrue(msg.contains("maxUnavailable must be a number like 1"), msg);
    assertEquals(2, cluster.pods().size(), "nothing changed");
    assertEquals(2, cluster.status("default/bad").observedGeneration());

    wf.specChanged(spec(3, 3, "a"));
    await("3 ready", 120, () -> allReady(wf, 3));
    assertFalse(cluster.status("default/bad").condition(Condition.INVALID_SPEC).statusTrue());
  }

  @Test
  void lateSpecGenerationIsIgnored() {
    NodeSetWorkflow wf = startNodeSet("late", spec(5, 2, "a"));
    await("2 ready", 120, () -> allReady(wf, 2));
    wf.specChanged(spec(4, 5, "z")); // older generation, delivered late
    env.sleep(java.time.Duration.ofMinutes(2));
    assertEquals(2, cluster.pods().size());
    assertTrue(wf.status().nodes().stream().allMatch(n -> "a".equals(n.revision())));
  }

  @Test
  void deletingTheNodeSetDrainsAndDeletesEveryNodeThenReleasesIt() {
    NodeSetWorkflow wf = startNodeSet("gone", spec(1, 3, "a"));
    await("3 ready", 120, () -> allReady(wf, 3));
    long job = cluster.startJob("gone-1");
    wf.delete(NodeCommand.of("scale-down", "NodeSet deleted"));
    await("idle nodes gone", 120, () -> !cluster.pods().containsKey("gone-0"));
    env.sleep(java.time.Duration.ofMinutes(5));
    assertTrue(cluster.pods().containsKey("gone-1"));
    assertTrue(cluster.released().isEmpty());
    cluster.endJob(job);
    WorkflowStub.fromTyped(wf).getResult(Void.class);
    assertTrue(cluster.pods().isEmpty());
    assertEquals(1, cluster.released().size());
    assertEquals(List.of(), cluster.violations());
  }

  @Test
  void statusQueryListsEveryNode() {
    NodeSetWorkflow wf = startNodeSet("q", spec(1, 2, "a"));
    await("2 ready", 120, () -> allReady(wf, 2));
    List<NodeSummary> nodes = wf.status().nodes();
    assertEquals(List.of("q-0", "q-1"), nodes.stream().map(NodeSummary::pod).toList());
    assertTrue(nodes.stream().allMatch(n -> n.slurmState().equals("idle")));
  }
}
