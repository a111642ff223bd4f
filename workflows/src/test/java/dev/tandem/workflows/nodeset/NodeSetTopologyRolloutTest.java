package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.UpdateStrategy;
import dev.tandem.workflows.testing.WorkflowTestBase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A rolling update by topology domain through the NodeSet workflow (time skipping): the fake puts
 * pod {@code <name>-<i>} on Kubernetes node {@code k8s-<i % 3>}; k8s-0 and k8s-1 are block a, k8s-2
 * block b. Six nodes: a = 0, 1, 3, 4; b = 2, 5.
 */
class NodeSetTopologyRolloutTest extends WorkflowTestBase {
  static final String KEY = "topology.tandem.dev/block";

  static NodeSetSpecView spec(long generation, String revision, UpdateStrategy strategy) {
    return new NodeSetSpecView(
        generation,
        "uid-ns",
        6,
        template(revision),
        strategy,
        DrainPolicy.waitForever(),
        DrainPolicy.waitForever(),
        List.of());
  }

  private static Set<String> pods(String name) {
    return Set.copyOf(IntStream.range(0, 6).mapToObj(i -> name + "-" + i).toList());
  }

  private boolean allAt(NodeSetWorkflow wf, String rev) {
    return wf.status().nodes().size() == 6
        && wf.status().nodes().stream()
            .allMatch(n -> rev.equals(n.revision()) && n.phase() == NodePhase.READY);
  }

  @Test
  void rollsOneDomainAtATimeIdleDomainFirstAtMostMaxUnavailableInIt() {
    cluster.labelNode("k8s-0", KEY, "a");
    cluster.labelNode("k8s-1", KEY, "a");
    cluster.labelNode("k8s-2", KEY, "b");
    UpdateStrategy byBlock = UpdateStrategy.rolling("2").byTopology(KEY, null);
    NodeSetWorkflow wf = startNodeSet("blk", spec(1, "a", byBlock));
    await("6 ready", 120, () -> allReady(wf, 6));
    long job = cluster.startJob("blk-1"); // block a is busy: idleFirst takes b first
    env.sleep(Duration.ofSeconds(25));
    cluster.track(pods("blk"));
    cluster.trackDomains(KEY);

    wf.specChanged(spec(2, "b", byBlock));
    await(
        "block a's idle nodes at b",
        600,
        () ->
            List.of("blk-0", "blk-3", "blk-4").stream()
                .allMatch(
                    p -> "b".equals(nodeStatus(p).revision()) && phaseIs(p, NodePhase.READY)));
    await("busy node draining", 60, () -> phaseIs("blk-1", NodePhase.DRAINING));
    env.sleep(Duration.ofMinutes(10));
    assertEquals("a", nodeStatus("blk-1").revision(), "a busy node waits for its job");
    cluster.endJob(job);
    await("all at b", 600, () -> allAt(wf, "b"));

    assertEquals(List.of("b", "a"), cluster.domainsTaken(), "idle block b first");
    assertEquals(1, cluster.maxDomainsOut(), "never nodes of two blocks out at once");
    assertEquals(Map.of("a", 2, "b", 2), cluster.maxOutPerDomain());
    assertEquals(List.of(), cluster.violations());
    assertTrue(cluster.labelReads() > 0);
  }

  @Test
  void byNameWithAPercentageOfEachDomain() {
    cluster.labelNode("k8s-0", KEY, "a");
    cluster.labelNode("k8s-1", KEY, "a");
    cluster.labelNode("k8s-2", KEY, "b");
    // 50%: 2 of a's 4 nodes, 1 of b's 2.
    UpdateStrategy byBlock = UpdateStrategy.rolling("50%").byTopology(KEY, UpdateStrategy.BY_NAME);
    NodeSetWorkflow wf = startNodeSet("pct", spec(1, "a", byBlock));
    await("6 ready", 120, () -> allReady(wf, 6));
    cluster.startJob("pct-1"); // busy, but name order takes a first anyway
    env.sleep(Duration.ofSeconds(25));
    cluster.track(pods("pct"));
    cluster.trackDomains(KEY);
    wf.specChanged(spec(2, "b", byBlock));
    await(
        "a's idle nodes at b",
        600,
        () ->
            List.of("pct-0", "pct-3", "pct-4").stream()
                .allMatch(
                    p -> "b".equals(nodeStatus(p).revision()) && phaseIs(p, NodePhase.READY)));
    env.sleep(Duration.ofMinutes(5));
    assertEquals(List.of("a"), cluster.domainsTaken(), "b waits until a is finished");
    assertEquals("a", nodeStatus("pct-2").revision());
  }

  @Test
  void withoutLabelsEveryNodeIsOneDomainAndNothingElseChanges() {
    UpdateStrategy byBlock = UpdateStrategy.rolling("2").byTopology(KEY, null);
    NodeSetWorkflow wf = startNodeSet("nol", spec(1, "a", byBlock));
    await("6 ready", 120, () -> allReady(wf, 6));
    cluster.track(pods("nol"));
    cluster.trackDomains(KEY);
    wf.specChanged(spec(2, "b", byBlock));
    await("all at b", 600, () -> allAt(wf, "b"));
    assertEquals(List.of(""), cluster.domainsTaken());
    assertEquals(2, cluster.maxOutOfService());
    assertEquals(List.of(), cluster.violations());
  }

  /**
   * Continue-as-new every 200 events (400 while busy: {@link ContinueAsNewTiming}; resync signals
   * grow the history until a continue-as-new falls inside the rollout): the domain in progress and
   * each node's survive it.
   */
  @Test
  void theDomainInProgressSurvivesContinueAsNew() {
    cluster.labelNode("k8s-0", KEY, "a");
    cluster.labelNode("k8s-1", KEY, "a");
    cluster.labelNode("k8s-2", KEY, "b");
    UpdateStrategy byBlock = UpdateStrategy.rolling("1").byTopology(KEY, UpdateStrategy.BY_NAME);
    NodeSetWorkflow wf =
        startNodeSet(
            "can",
            spec(1, "a", byBlock),
            new dev.tandem.workflows.model.Tuning(1, 10, 200, 200, 120, true));
    await("6 ready", 120, () -> allReady(wf, 6));
    cluster.track(pods("can"));
    cluster.trackDomains(KEY);
    // A job on every node holds the rollout in its first domain while resyncs grow the history
    // to the busy bound; then the jobs end and the rollout goes on in the next run.
    List<Long> jobs = pods("can").stream().map(cluster::startJob).toList();
    wf.specChanged(spec(2, "b", byBlock));
    String id = dev.tandem.workflows.Names.nodeSetWorkflowId(NS, "can");
    String first = client.newUntypedWorkflowStub(id).describe().getExecution().getRunId();
    await("the rollout started", 60, () -> !cluster.domainsTaken().isEmpty());
    for (int i = 0; i < 400; i++) { // each resync is a pass: a few events
      if (!client.newUntypedWorkflowStub(id).describe().getExecution().getRunId().equals(first)) {
        break;
      }
      wf.resync();
      env.sleep(Duration.ofSeconds(1));
    }
    jobs.forEach(cluster::endJob);
    await("all at b", 900, () -> allAt(wf, "b"));
    assertEquals(List.of("a", "b"), cluster.domainsTaken());
    assertEquals(1, cluster.maxDomainsOut());
    assertEquals(1, cluster.maxOutOfService());
    long runs =
        client
            .getWorkflowServiceStubs()
            .blockingStub()
            .getWorkflowExecutionHistory(
                io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest.newBuilder()
                    .setNamespace("default")
                    .setExecution(
                        io.temporal.api.common.v1.WorkflowExecution.newBuilder()
                            .setWorkflowId(dev.tandem.workflows.Names.nodeSetWorkflowId(NS, "can"))
                            .build())
                    .build())
            .getHistory()
            .getEventsList()
            .stream()
            .filter(e -> e.hasWorkflowExecutionStartedEventAttributes())
            .filter(
                e ->
                    !e.getWorkflowExecutionStartedEventAttributes()
                        .getContinuedExecutionRunId()
                        .isEmpty())
            .count();
    assertTrue(runs > 0, "the rollout spanned a continue-as-new");
  }
}
