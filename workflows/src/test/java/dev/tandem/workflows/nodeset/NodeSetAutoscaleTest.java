package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Autoscaling;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetDemand;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.UpdateStrategy;
import dev.tandem.workflows.testing.TandemWorkflows;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.worker.WorkerFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Autoscaler} through the NodeSet workflow, with time skipping. */
class NodeSetAutoscaleTest extends WorkflowTestBase {
  private static final Autoscaling AUTO = new Autoscaling(0, 4, 600, 5);

  private static NodeSetSpecView auto(long generation, int replicas, Autoscaling a) {
    return new NodeSetSpecView(
        generation,
        "uid-ns",
        replicas,
        template("a"),
        UpdateStrategy.rolling("1"),
        DrainPolicy.waitForever(),
        DrainPolicy.waitForever(),
        List.of(),
        null,
        null,
        a);
  }

  private static NodeSetDemand demand(int nodes, int jobs, int busy) {
    return new NodeSetDemand(nodes, jobs, busy, 0, Instant.EPOCH);
  }

  private List<String> events(String reason) {
    return cluster.events().stream()
        .filter(e -> e.reason().equals(reason))
        .map(EventRequest::message)
        .toList();
  }

  private long active() {
    return cluster.pods().size();
  }

  @Test
  void fromZeroForTheQueueAndBackToZeroOnlyOnceTheNodesAreIdleLongEnough() {
    NodeSetWorkflow wf = startNodeSet("as", auto(1, 0, AUTO));
    await("status written", 30, () -> cluster.status("default/as") != null);
    wf.demandObserved(demand(2, 1, 0));
    await("2 ready", 120, () -> allReady(wf, 2));
    assertEquals(List.of(2), cluster.replicaWrites, "spec.replicas set to what was decided");
    assertTrue(events("Autoscaled").get(0).contains("1 pending job(s) ask for 2 node(s)"));

    // The job runs on both nodes; the queue is empty.
    long j0 = cluster.startJob("as-0");
    long j1 = cluster.startJob("as-1");
    wf.demandObserved(demand(0, 0, 2));
    env.sleep(Duration.ofMinutes(30));
    assertEquals(2, active(), "busy nodes are never given back");

    cluster.endJob(j0);
    wf.demandObserved(demand(0, 0, 1));
    env.sleep(Duration.ofMinutes(5));
    assertEquals(2, active(), "as-0 idle for less than idleTime");
    cluster.endJob(j1);
    wf.demandObserved(demand(0, 0, 0));
    await("as-0 deleted", 900, () -> phaseIs("as-0", NodePhase.DELETED));
    assertTrue(phaseIs("as-1", NodePhase.READY), "as-1 idle for less than idleTime yet");
    await("as-1 deleted", 900, () -> phaseIs("as-1", NodePhase.DELETED));
    assertEquals(List.of(2, 1, 0), cluster.replicaWrites);
    assertEquals(List.of(), cluster.violations());
  }

  @Test
  void demandShorterThanTheDelayAddsNothingAndBoundsHold() {
    NodeSetWorkflow wf = startNodeSet("fl", auto(1, 0, new Autoscaling(1, 3, 600, 60)));
    // minReplicas 1: one node at once, with no demand.
    await("1 ready", 120, () -> allReady(wf, 1));
    cluster.startJob("fl-0");
    env.sleep(Duration.ofSeconds(15));
    // A burst that Slurm places within the delay: nothing added.
    wf.demandObserved(demand(3, 3, 1));
    env.sleep(Duration.ofSeconds(20));
    wf.demandObserved(demand(0, 0, 1));
    env.sleep(Duration.ofMinutes(5));
    assertEquals(List.of(1), cluster.replicaWrites);
    // Demand beyond maxReplicas: held at 3.
    wf.demandObserved(demand(10, 2, 1));
    await("3 ready", 300, () -> allReady(wf, 3));
    assertEquals(List.of(1, 3), cluster.replicaWrites);
    assertTrue(events("Autoscaled").get(1).contains("held at maxReplicas 3"));
    // Idle for long: down to minReplicas, each node after its own idle time, never below (fl-0
    // runs its job all along).
    wf.demandObserved(demand(0, 0, 1));
    env.sleep(Duration.ofMinutes(30));
    List<Integer> w = cluster.replicaWrites;
    assertEquals(List.of(1, 3), w.subList(0, 2));
    assertEquals(1, w.get(w.size() - 1));
    assertTrue(w.stream().allMatch(n -> n >= 1 && n <= 3), w.toString());
    assertTrue(phaseIs("fl-0", NodePhase.READY), "the busy node stays");
  }

  @Test
  void kubectlScaleIsWrittenBackOverAndMovesNoNode() {
    NodeSetWorkflow wf = startNodeSet("ov", auto(1, 1, AUTO));
    await("1 ready", 120, () -> allReady(wf, 1));
    cluster.startJob("ov-0");
    // Someone runs kubectl scale --replicas 3: a newer generation with another count.
    wf.specChanged(auto(2, 3, AUTO));
    env.sleep(Duration.ofMinutes(2));
    assertEquals(1, active(), "no node started for a count the autoscaler did not decide");
    assertEquals(1, events("ReplicasOverridden").size());
    assertTrue(events("ReplicasOverridden").get(0).contains("spec.replicas 3"));
    assertEquals(List.of(1), cluster.replicaWrites, "written back");
    // The write lands (a newer generation with the autoscaler's count): quiet.
    wf.specChanged(auto(3, 1, AUTO));
    env.sleep(Duration.ofMinutes(2));
    assertEquals(1, events("ReplicasOverridden").size());
  }

  @Test
  void withoutRoomInKubernetesItSaysSoAndAsksForNoMore() {
    NodeSetWorkflow wf = startNodeSet("cap", auto(1, 0, AUTO));
    await("status written", 30, () -> cluster.status("default/cap") != null);
    cluster.unschedulable("0/3 nodes are available: 3 Insufficient cpu");
    wf.demandObserved(demand(2, 2, 0));
    env.sleep(Duration.ofMinutes(10));
    assertEquals(List.of(2), cluster.replicaWrites, "no more asked while the pods wait");
    assertEquals(2, active());
    String message =
        cluster
            .status("default/cap")
            .condition(dev.tandem.workflows.model.Condition.AUTOSCALED)
            .message();
    assertTrue(
        message.contains("2 node(s) wait for Kubernetes to start their pod")
            && message.contains("Insufficient cpu"),
        message);
    // A Kubernetes node is added (a cluster autoscaler reacting to the pending pods): they start.
    cluster.schedulePending();
    await("2 ready", 300, () -> allReady(wf, 2));
    assertEquals(List.of(2), cluster.replicaWrites);
  }

  @Test
  void movedBoundsMoveTheCountAtOnce() {
    NodeSetWorkflow wf = startNodeSet("mm", auto(1, 0, AUTO));
    await("status written", 30, () -> cluster.status("default/mm") != null);
    wf.demandObserved(demand(0, 0, 0));
    // minReplicas raised to 2: two nodes with no demand.
    wf.specChanged(auto(2, 0, new Autoscaling(2, 4, 600, 5)));
    await("2 ready", 120, () -> allReady(wf, 2));
    assertEquals(List.of(2), cluster.replicaWrites);
    // A job on mm-1; maxReplicas lowered to 1 (minReplicas with it): the idle mm-0 goes, the busy
    // mm-1 stays.
    cluster.startJob("mm-1");
    wf.demandObserved(demand(0, 0, 1));
    env.sleep(Duration.ofSeconds(30));
    wf.specChanged(auto(3, 2, new Autoscaling(1, 1, 600, 5)));
    await("mm-0 deleted", 120, () -> phaseIs("mm-0", NodePhase.DELETED));
    assertTrue(phaseIs("mm-1", NodePhase.READY));
    assertEquals(List.of(2, 1), cluster.replicaWrites);
    assertTrue(events("Autoscaled").get(1).contains("held at maxReplicas 1"));
  }

  @Test
  void aNodeSetDeletedWhileItScalesUpDrainsEverythingAndWritesNoMore() {
    NodeSetWorkflow wf = startNodeSet("del", auto(1, 0, AUTO));
    await("status written", 30, () -> cluster.status("default/del") != null);
    wf.demandObserved(demand(3, 1, 0));
    await("3 starting", 60, () -> active() == 3);
    int writes = cluster.replicaWrites.size();
    wf.delete(
        dev.tandem.workflows.model.NodeCommand.of(
            dev.tandem.workflows.model.DrainCause.SCALE_DOWN, "NodeSet deleted"));
    wf.demandObserved(demand(5, 2, 0)); // the queue still asks: nothing comes of it
    await("released", 300, () -> cluster.released().size() == 1);
    assertEquals(0, active());
    assertEquals(writes, cluster.replicaWrites.size(), "no write of spec.replicas while deleting");
  }

  @Test
  void aWorkerCrashMidScaleAndARefusedWriteLoseNothing() {
    NodeSetWorkflow wf = startNodeSet("cr", auto(1, 0, AUTO));
    await("status written", 30, () -> cluster.status("default/cr") != null);
    cluster.failReplicaWrites = true;
    wf.demandObserved(demand(3, 1, 0));
    await("3 starting", 60, () -> active() == 3);
    // The worker dies while the nodes start; a new one replays the histories.
    env.getWorkerFactory().shutdownNow();
    env.sleep(Duration.ofSeconds(30));
    WorkerFactory fresh = WorkerFactory.newInstance(client);
    TandemWorkflows.register(fresh.newWorker(Names.TASK_QUEUE), cluster);
    fresh.start();
    try {
      // Queries would go to the dead worker's sticky queue: watch the cluster instead.
      await(
          "3 serving in Slurm",
          300,
          () ->
              List.of("cr-0", "cr-1", "cr-2").stream()
                  .map(cluster::slurmNode)
                  .allMatch(n -> n.known() && "idle".equals(n.state()) && n.flags().isEmpty()));
      assertTrue(cluster.replicaWrites.isEmpty(), "every write refused so far");
      cluster.failReplicaWrites = false;
      await("written once it is accepted", 60, () -> cluster.replicaWrites.equals(List.of(3)));
      assertEquals(1, events("Autoscaled").size(), "one decision, not one per pass");
      assertEquals(3, active(), "no node asked for twice across the restart");
    } finally {
      fresh.shutdownNow();
    }
  }
}
