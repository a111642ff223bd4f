package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.testing.WorkflowTestBase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The NodeSet's status tells the truth: nodes Slurm does not serve count as unavailable, conditions
 * agree with the numbers, and the watchers' health reports show.
 */
class NodeSetHonestStatusTest extends WorkflowTestBase {

  private Condition written(String nodeSet, String type) {
    NodeSetStatusView st = cluster.status("default/" + nodeSet);
    return st == null ? null : st.condition(type);
  }

  private static ClusterHealth health(String component, boolean reachable, String message) {
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    return new ClusterHealth(component, reachable, message, t, t);
  }

  @Test
  void anAdminDrainedNodeCountsAgainstMaxUnavailable() {
    NodeSetWorkflow wf = startNodeSet("adm", spec(1, 3, "a"));
    await("3 ready", 120, () -> allReady(wf, 3));
    cluster.adminDrain("adm-1", "disk");
    await(
        "the NodeSet hears of the drain",
        60,
        () -> wf.status().nodes().get(1).slurmState().equals("idle+DRAIN"));
    cluster.track(Set.of("adm-0", "adm-1", "adm-2"));

    wf.specChanged(spec(2, 3, "b"));
    env.sleep(Duration.ofMinutes(10));
    assertEquals(
        1, cluster.maxOutOfService(), "maxUnavailable 1: no second node while adm-1 is out");
    assertEquals("b", nodeStatus("adm-1").revision(), "the drained node is updated free");
    assertEquals("a", nodeStatus("adm-0").revision());
    assertEquals("a", nodeStatus("adm-2").revision());
    await("Ready=False", 10, () -> !written("adm", Condition.READY).statusTrue());
    assertEquals(
        "2/3 nodes ready; adm-1: drained by an administrator: disk",
        written("adm", Condition.READY).message());
    assertEquals(2, cluster.status("default/adm").readyReplicas());

    cluster.adminResume("adm-1");
    await(
        "all at b",
        600,
        () ->
            wf.status().nodes().stream().allMatch(n -> "b".equals(n.revision()))
                && written("adm", Condition.READY).statusTrue());
    assertEquals(1, cluster.maxOutOfService());
    assertEquals(List.of(), cluster.violations());
  }

  @Test
  void aDownOrNotRespondingNodeMakesReadyFalseAndSaysWhy() {
    NodeSetWorkflow wf = startNodeSet("dn", spec(1, 3, "a"));
    await("3 ready", 120, () -> allReady(wf, 3));
    cluster.slurmdDies("dn-2");
    await("Ready=False", 60, () -> !written("dn", Condition.READY).statusTrue());
    NodeSetStatusView st = cluster.status("default/dn");
    assertEquals(2, st.readyReplicas());
    assertEquals(3, st.replicas());
    assertEquals(1, st.slurm().down());
    Condition ready = st.condition(Condition.READY);
    assertEquals("NodesNotReady", ready.reason());
    assertEquals("2/3 nodes ready; dn-2: down: Not responding", ready.message());
    assertFalse(st.condition(Condition.PROGRESSING).statusTrue(), "nothing is in progress");
    assertEquals(ready, wf.status().status().condition(Condition.READY), "the query agrees");

    cluster.slurmdBack("dn-2");
    await("Ready=True", 60, () -> written("dn", Condition.READY).statusTrue());
    assertEquals("3/3 nodes ready", written("dn", Condition.READY).message());
  }

  @Test
  void aBusyScaleDownKeepsReadyTrueAndNamesTheNodeStillDraining() {
    NodeSetWorkflow wf = startNodeSet("bsd", spec(1, 3, "a"));
    await("3 ready", 120, () -> allReady(wf, 3));
    for (String n : List.of("bsd-0", "bsd-1", "bsd-2")) {
      cluster.startJob(n);
    }
    env.sleep(Duration.ofSeconds(25)); // a resync: the reports show the jobs
    wf.specChanged(spec(2, 2, "a"));
    await("bsd-2 draining", 60, () -> phaseIs("bsd-2", NodePhase.DRAINING));
    await(
        "ScalingDown names the draining node and its jobs",
        60,
        // The report that the node drains comes before its jobs are read ("jobs unknown").
        () ->
            written("bsd", Condition.PROGRESSING)
                .message()
                .contains("bsd-2 draining (jobs running)"));
    NodeSetStatusView st = cluster.status("default/bsd");
    assertTrue(st.condition(Condition.READY).statusTrue(), st.conditions().toString());
    assertEquals("2/2 nodes ready", st.condition(Condition.READY).message());
    assertEquals(2, st.readyReplicas());
    assertEquals(
        "scaling down from 3 to 2; waiting for bsd-2 draining (jobs running)",
        st.condition(Condition.PROGRESSING).message());
  }

  @Test
  void aSlurmOutageReportedByTheWatchersShowsWithinOnePass() {
    NodeSetWorkflow wf = startNodeSet("hs", spec(1, 1, "a"));
    await("ready", 60, () -> allReady(wf, 1));
    Condition before = written("hs", Condition.SLURM_REACHABLE);
    assertEquals("Unknown", before.status());
    assertEquals("NoReport", before.reason());
    wf.clusterHealth(health(ClusterHealth.SLURM, true, "slurmrestd answers"));
    await("True", 2, () -> written("hs", Condition.SLURM_REACHABLE).statusTrue());

    wf.clusterHealth(health(ClusterHealth.SLURM, false, "slurmrestd: connection refused"));
    await(
        "SlurmReachable=False",
        2,
        () -> "False".equals(written("hs", Condition.SLURM_REACHABLE).status()));
    Condition c = written("hs", Condition.SLURM_REACHABLE);
    assertEquals("Unreachable", c.reason());
    assertEquals("slurmrestd: connection refused", c.message());
    assertEquals(c, wf.status().status().condition(Condition.SLURM_REACHABLE));
    assertEquals("Unknown", written("hs", Condition.KUBERNETES_REACHABLE).status());
    Condition d = written("hs", Condition.DEGRADED);
    assertEquals(Condition.TRUE, d.status(), "an outage degrades the NodeSet");
    assertEquals("SlurmUnreachable", d.reason());
    assertEquals(
        "Slurm unreachable, node states as last seen: slurmrestd: connection refused", d.message());
    assertEquals(
        "unreachable (was idle)",
        wf.status().nodes().get(0).slurmState(),
        "the Slurm column says so, not the stale state");

    wf.clusterHealth(health(ClusterHealth.SLURM, true, "slurmrestd answers"));
    await("SlurmReachable=True", 2, () -> written("hs", Condition.SLURM_REACHABLE).statusTrue());
    assertEquals(Condition.FALSE, written("hs", Condition.DEGRADED).status());
    assertEquals("idle", wf.status().nodes().get(0).slurmState());
  }

  @Test
  void aHealthReportGoesStaleAndTurnsUnknownOnTime() {
    Tuning slow = new Tuning(1, 3600, 4000, 200, 120, true); // only the stale deadline wakes it
    NodeSetWorkflow wf = startNodeSet("st", spec(1, 1, "a"), slow);
    await("ready", 60, () -> allReady(wf, 1));
    wf.clusterHealth(health(ClusterHealth.KUBERNETES, true, "API server answers"));
    await("True", 2, () -> written("st", Condition.KUBERNETES_REACHABLE).statusTrue());
    env.sleep(NodeSetConditions.HEALTH_STALE_AFTER.minusSeconds(5));
    assertTrue(written("st", Condition.KUBERNETES_REACHABLE).statusTrue(), "not stale yet");
    await(
        "stale",
        10,
        () -> "Unknown".equals(written("st", Condition.KUBERNETES_REACHABLE).status()));
    Condition c = written("st", Condition.KUBERNETES_REACHABLE);
    assertEquals("ReportStale", c.reason());
    assertTrue(c.message().endsWith("the last said reachable: API server answers"), c.message());
  }

  @Test
  void aKubernetesOutageShowsInTheQueryWhileTheStatusCannotBeWritten() {
    NodeSetWorkflow wf = startNodeSet("ko", spec(1, 1, "a"));
    await("ready", 60, () -> allReady(wf, 1));
    cluster.kubeDown(true);
    wf.clusterHealth(health(ClusterHealth.KUBERNETES, false, "API server: connection refused"));
    await(
        "query shows it",
        5,
        () -> {
          Condition c = wf.status().status().condition(Condition.KUBERNETES_REACHABLE);
          return c != null && "False".equals(c.status());
        });
    assertEquals(
        "Unknown",
        written("ko", Condition.KUBERNETES_REACHABLE).status(),
        "the write failed, as expected");
    cluster.kubeDown(false);
    wf.clusterHealth(health(ClusterHealth.KUBERNETES, true, "API server answers"));
    await("written", 180, () -> written("ko", Condition.KUBERNETES_REACHABLE).statusTrue());
  }
}
