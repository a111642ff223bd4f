package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.devstack.temporal.LocalTemporal;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.node.NodeLifecycleInput;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.remediation.BudgetStatus;
import dev.tandem.workflows.remediation.NodeHealth;
import dev.tandem.workflows.remediation.RemediationBudgetWorkflow;
import dev.tandem.workflows.remediation.RemediationInput;
import dev.tandem.workflows.remediation.RemediationPolicy;
import dev.tandem.workflows.remediation.RemediationState;
import dev.tandem.workflows.remediation.RemediationStep;
import dev.tandem.workflows.remediation.RemediationTarget;
import dev.tandem.workflows.remediation.RemediationTimelineEntry;
import dev.tandem.workflows.remediation.RemediationTrigger;
import dev.tandem.workflows.remediation.RemediationWorkflow;
import dev.tandem.workflows.remediation.SlotRequest;
import dev.tandem.workflows.remediation.TriggerKind;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code tandem remediate}, {@code tandem remediations} and {@code tandem history <k8s-node>}
 * against a local Temporal server, with stand-in remediation and budget workflows ({@link
 * RemediationFakes}) answering {@code status} like the real ones.
 */
class RemediationCommandsTest {
  private static final Instant NOW = Instant.now();
  private static LocalTemporal temporal;
  private static WorkflowServiceStubs stubs;
  private static WorkflowClient client;
  private static WorkerFactory worker;

  @BeforeAll
  static void start() throws Exception {
    temporal = LocalTemporal.startTemporary();
    stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
    client = WorkflowClient.newInstance(stubs);
    worker = WorkerFactory.newInstance(client);
    worker
        .newWorker(Names.TASK_QUEUE)
        .registerWorkflowImplementationTypes(
            RemediationFakes.FakeRemediation.class,
            RemediationFakes.FakeBudget.class,
            DrainWaitAcrossWorkerRestartTest.FakeNode.class);
    worker.start();

    NodeRef gpu0 = NodeRef.of("default", "gpu-a", 0);
    RemediationTarget target =
        new RemediationTarget(
            "k1",
            true,
            List.of(gpu0, NodeRef.of("default", "gpu-a", 1)),
            List.of("default/gpu-a"),
            Map.of(),
            RemediationPolicy.defaults());
    preset(
        "k1",
        RemediationStep.REBOOTING,
        NOW.minus(Duration.ofMinutes(5)),
        target,
        1,
        new NodeHealth(List.of("GpuUnhealthy=True: Xid 79")),
        null,
        List.of());
    preset(
        "k3.example.com",
        RemediationStep.FAILED,
        NOW.minus(Duration.ofMinutes(1)),
        null,
        2,
        new NodeHealth(List.of("GpuUnhealthy=True: Xid 79")),
        "Failed: every step tried; GpuUnhealthy=True: Xid 79",
        List.of(
            new RemediationTimelineEntry(
                Instant.parse("2026-01-01T10:00:00Z"),
                RemediationStep.OBSERVING,
                "trigger",
                "Condition: GpuUnhealthy=True: Xid 79 from node-watcher"),
            new RemediationTimelineEntry(
                Instant.parse("2026-01-01T10:00:01Z"),
                RemediationStep.RESTARTING_SLURMD,
                "entered",
                "deleted default/gpu-b-0"),
            new RemediationTimelineEntry(
                Instant.parse("2026-01-01T10:10:01Z"),
                RemediationStep.FAILED,
                "entered",
                "every step tried")));
    trigger("k1", TriggerKind.CONDITION, "GpuUnhealthy=True: Xid 79");
    trigger("k2", TriggerKind.SLURM_REASON, "gpu-a-2 down: Not responding");
    trigger("k3.example.com", TriggerKind.CONDITION, "GpuUnhealthy=True: Xid 79");
    trigger("k4", TriggerKind.NOT_READY, "Ready=Unknown: kubelet stopped");
    trigger("gpu-a-0", TriggerKind.OPERATOR, "same name as a Tandem node");
    // A remediation that ended: never listed as running.
    trigger("k8", TriggerKind.OPERATOR, "end:RECOVERED");
    client.newUntypedWorkflowStub(Names.remediationWorkflowId("k8")).getResult(Object.class);
    NodeLifecycleWorkflow node =
        client.newWorkflowStub(
            NodeLifecycleWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(Names.nodeWorkflowId("default", "gpu-a-0"))
                .setTaskQueue(Names.TASK_QUEUE)
                .build());
    WorkflowClient.start(node::run, (NodeLifecycleInput) null);
    // The budget: k1 holds a slot, k2 waits; k0 ended an hour ago.
    RemediationBudgetWorkflow budget =
        client.newWorkflowStub(
            RemediationBudgetWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(Names.REMEDIATION_BUDGET_ID)
                .setTaskQueue(Names.TASK_QUEUE)
                .build());
    WorkflowClient.start(
        budget::run,
        new BudgetStatus(
            List.of(entry("k1", NOW.minus(Duration.ofMinutes(20)), null)),
            List.of(
                entry("k2", NOW.minus(Duration.ofMinutes(2)), "NodeSet default/gpu-a full: 1/1")),
            List.of(entry("k0", NOW.minus(Duration.ofHours(1)), "Recovered"))));
    // Visibility is eventually consistent: wait until it lists what runs, and k8 no longer.
    Await.until(
        "visibility lists the running remediations",
        Duration.ofSeconds(30),
        () -> RemediationLookup.running(session()),
        n -> n.equals(List.of("gpu-a-0", "k1", "k2", "k3.example.com", "k4")));
  }

  private static TemporalSession session() {
    return new TemporalSession(client, temporal.address(), "default", Duration.ofSeconds(5));
  }

  @AfterAll
  static void stop() {
    worker.shutdownNow();
    stubs.shutdownNow();
    temporal.close();
    RemediationFakes.FakeRemediation.preset.clear();
  }

  private static void preset(
      String node,
      RemediationStep step,
      Instant since,
      RemediationTarget target,
      int rung,
      NodeHealth check,
      String outcome,
      List<RemediationTimelineEntry> timeline) {
    RemediationFakes.FakeRemediation.preset.put(
        node,
        new RemediationState(
            node,
            step,
            since,
            since.minusSeconds(60),
            null,
            target,
            rung,
            check,
            outcome,
            timeline));
  }

  private static void trigger(String node, TriggerKind kind, String detail) {
    client
        .newUntypedWorkflowStub(
            "Remediation",
            WorkflowOptions.newBuilder()
                .setWorkflowId(Names.remediationWorkflowId(node))
                .setTaskQueue(Names.TASK_QUEUE)
                .build())
        .signalWithStart(
            Names.SIGNAL_TRIGGER,
            new Object[] {RemediationTrigger.of(kind, detail, "test")},
            new Object[] {new RemediationInput(node, null)});
  }

  private static BudgetStatus.Entry entry(String node, Instant since, String note) {
    return new BudgetStatus.Entry(
        new SlotRequest(node, List.of("default/gpu-a"), 1, null, 1, "cause"), since, note);
  }

  private CliRun tandem(String... args) {
    return CliRun.of(CliRun.concat(args, "--address", temporal.address()));
  }

  private static RemediationState state(String node) {
    return client
        .newWorkflowStub(RemediationWorkflow.class, Names.remediationWorkflowId(node))
        .status();
  }

  /**
   * The budget's holders, then those waiting, then every other running remediation from visibility
   * (k4 still observing, in name order); not k8, whose remediation ended.
   */
  @Test
  void remediationsListsHoldersThenWaitingThenTheOtherRunningOnes() throws Exception {
    CliRun r = tandem("remediations");
    assertEquals(0, r.code(), r.toString());
    // k5 to k7 are other tests' remediations, listed while they run.
    List<String> lines = r.out().lines().filter(l -> !l.matches("k[5-7] .*")).toList();
    assertTrue(lines.get(0).matches("NODE +STEP +IN-STEP +CAUSE +SLOT"), r.out());
    assertTrue(
        lines.get(1).matches("k1 +Rebooting +5m +Condition: GpuUnhealthy=True: Xid 79 +held 20m"),
        r.out());
    assertTrue(
        lines
            .get(2)
            .matches(
                "k2 +Observing +\\d+s +SlurmReason: gpu-a-2 down: Not responding +waiting 2m:"
                    + " NodeSet default/gpu-a full: 1/1"),
        r.out());
    assertTrue(
        lines.get(3).matches("gpu-a-0 +Observing +\\d+s +Operator: same name as a Tandem node +-"),
        r.out());
    assertTrue(lines.get(4).matches("k3.example.com +Failed +\\S+ +Condition: .* +-"), r.out());
    assertTrue(
        lines.get(5).matches("k4 +Observing +\\d+s +NotReady: Ready=Unknown: kubelet stopped +-"),
        r.out());
    assertEquals("ended recently (tandem remediations --node NODE for more):", lines.get(6));
    assertTrue(lines.get(7).matches("  k0  \\d{4}-.*Z  Recovered"), r.out());
    assertEquals(8, lines.size(), r.out());

    CliRun json = tandem("remediations", "-o", "json");
    JsonNode doc = Output.JSON.readTree(json.out());
    assertEquals("k1", doc.get(0).path("node").asText());
    assertEquals("Rebooting", doc.get(0).path("step").asText());
    assertEquals("Condition: GpuUnhealthy=True: Xid 79", doc.get(0).path("cause").asText());
    assertEquals("held 20m", doc.get(0).path("slot").asText());
    assertEquals("k4", doc.get(4).path("node").asText());
    assertEquals("-", doc.get(4).path("slot").asText());
    for (JsonNode row : doc) {
      assertTrue(!row.path("node").asText().equals("k8"), json.out());
    }

    CliRun k2 = tandem("remediations", "--node", "k2");
    assertTrue(
        k2.out()
            .matches(
                "(?s).*\n  slot: waiting for a slot since .*Z: NodeSet default/gpu-a full:"
                    + " 1/1\n.*"),
        k2.out());
  }

  @Test
  void withNothingRunningNoNodeIsInRemediation() {
    assertEquals(
        "no node is in remediation\n",
        RemediationsCommand.render(List.of(), Optional.empty(), NOW));
  }

  @Test
  void oneNodeInDetailAlsoWhenObservingOrEnded() {
    CliRun observing = tandem("remediations", "--node", "k4");
    assertEquals(0, observing.code(), observing.toString());
    List<String> lines = observing.out().lines().toList();
    assertTrue(
        lines.get(0).matches("remediation/k4: Observing for \\d+s \\(since .*Z\\)"), lines.get(0));
    assertTrue(
        lines.contains("  cause: NotReady: Ready=Unknown: kubelet stopped"), observing.out());
    assertTrue(lines.contains("  slot: not in the budget"), observing.out());

    CliRun failed = tandem("remediations", "--node", "k3.example.com");
    assertEquals(0, failed.code(), failed.toString());
    assertTrue(failed.out().startsWith("remediation/k3.example.com: Failed at "), failed.out());
    assertTrue(
        failed.out().contains("  outcome: Failed: every step tried; GpuUnhealthy=True: Xid 79\n"),
        failed.out());

    CliRun k1 = tandem("remediations", "--node", "k1");
    assertTrue(k1.out().contains("  slurm nodes: default/gpu-a-0, default/gpu-a-1\n"), k1.out());
    assertTrue(k1.out().contains("  rung: 2 of 3 (Reboot)\n"), k1.out());
    assertTrue(k1.out().contains("  last check: GpuUnhealthy=True: Xid 79\n"), k1.out());

    CliRun none = tandem("remediations", "--node", "k9");
    assertEquals(1, none.code(), none.toString());
    assertEquals(
        "tandem: no remediation of node k9 (workflow remediation/k9 never ran); start one with"
            + " tandem remediate k9 --reason ...\n",
        none.err());
  }

  @Test
  void remediateStartsOrJoinsTheNodesRemediationWithAnOperatorTrigger() {
    CliRun r = tandem("remediate", "k5", "--reason", "GPU 3 throws Xid 79");
    assertEquals(0, r.code(), r.toString());
    assertEquals(
        "remediation of node k5 requested (workflow remediation/k5; it starts, or joins the one"
            + " that runs): Operator: GPU 3 throws Xid 79\n"
            + "follow it with: tandem remediations --node k5  or  tandem history k5\n",
        r.out());
    String run =
        client
            .newUntypedWorkflowStub("remediation/k5")
            .describe()
            .getWorkflowExecutionInfo()
            .getExecution()
            .getRunId();
    CliRun again = tandem("remediate", "k5", "--reason", "still broken");
    assertEquals(0, again.code(), again.toString());
    List<RemediationTrigger> got = state("k5").triggers();
    assertEquals(
        List.of(
            RemediationTrigger.of(
                TriggerKind.OPERATOR, "GPU 3 throws Xid 79", RemediateCommand.source()),
            RemediationTrigger.of(TriggerKind.OPERATOR, "still broken", RemediateCommand.source())),
        got);
    assertEquals(
        run,
        client
            .newUntypedWorkflowStub("remediation/k5")
            .describe()
            .getWorkflowExecutionInfo()
            .getExecution()
            .getRunId(),
        "the second trigger joined the running remediation");
  }

  @Test
  void remediateWaitFollowsTheStepsToTheEndAndExitsByTheOutcome() {
    CliRun ok =
        tandem("remediate", "k6", "--reason", "end:RECOVERED", "--wait", "--timeout", "60s");
    assertEquals(0, ok.code(), ok.toString());
    assertTrue(ok.out().contains("  k6: WaitingForSlot\n"), ok.out());
    assertTrue(ok.out().contains("  k6: Rebooting\n"), ok.out());
    assertTrue(ok.out().endsWith("remediation/k6 ended Recovered: Recovered (fake)\n"), ok.out());

    CliRun failed = tandem("remediate", "k7", "--reason", "end:FAILED", "--wait");
    assertEquals(1, failed.code(), failed.toString());
    assertTrue(
        failed.out().contains("  k7: Failed (last check: GpuUnhealthy=True: Xid)\n"), failed.out());
    assertTrue(failed.out().endsWith("remediation/k7 ended Failed: Failed (fake)\n"), failed.out());
  }

  @Test
  void aWrongNodeOrReasonIsAWrongCommandLine() {
    String[][] bad = {
      {"remediate", "Node_1", "--reason", "x"},
      {"remediate", "k1", "--reason", " "},
      {"remediate", "k1", "--reason", "two\nlines"},
      {"remediate", "k1", "--reason", "x".repeat(RemediateCommand.MAX_REASON + 1)},
      {"remediations", "--node", "Node_1"},
      {"history", "remediation/Node_1"},
    };
    for (String[] args : bad) {
      CliRun r = tandem(args);
      assertEquals(2, r.code(), String.join(" ", args) + ": " + r);
    }
    assertEquals(170, RemediateCommand.MAX_REASON);
  }

  @Test
  void historyOfAKubernetesNodeShowsItsRemediationTimeline() throws Exception {
    CliRun r = tandem("history", "k3.example.com");
    assertEquals(0, r.code(), r.toString());
    List<String> lines = r.out().lines().toList();
    assertTrue(
        lines
            .get(0)
            .matches(
                "remediation/k3.example.com: Failed since .*Z, started .*Z, cause Condition:"
                    + " GpuUnhealthy=True: Xid 79; outcome: Failed: every step tried;"
                    + " GpuUnhealthy=True: Xid 79"),
        lines.get(0));
    assertTrue(lines.get(1).matches("TIME +STEP +EVENT +DETAIL"), r.out());
    assertTrue(
        lines
            .get(2)
            .matches(
                "2026-01-01 10:00:00Z +Observing +trigger +Condition: GpuUnhealthy=True: Xid 79"
                    + " from node-watcher"),
        r.out());
    assertTrue(
        lines.get(3).matches("2026-01-01 10:00:01Z +RestartingSlurmd +entered +deleted .*"),
        r.out());
    assertTrue(lines.get(4).matches("2026-01-01 10:10:01Z +Failed +entered +every step tried"));

    assertEquals(r.out(), tandem("history", "remediation/k3.example.com").out());

    // A bare name that is no Tandem node: its remediation.
    CliRun k4 = tandem("history", "k4");
    assertEquals(0, k4.code(), k4.toString());
    assertTrue(k4.out().startsWith("remediation/k4: Observing since "), k4.out());

    JsonNode json = Output.JSON.readTree(tandem("history", "k3.example.com", "-o", "json").out());
    assertEquals(3, json.size());
    assertEquals("RESTARTING_SLURMD", json.get(1).path("step").asText());
  }

  @Test
  void aTandemNodeNamedLikeARemediatedKubernetesNodeShowsItsOwnTimelineAndANote() {
    CliRun r = tandem("history", "gpu-a-0");
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().startsWith("default/gpu-a-0: "), r.out());
    assertTrue(
        r.out()
            .endsWith(
                "note: Kubernetes node gpu-a-0 has a remediation too: tandem history"
                    + " remediation/gpu-a-0\n"),
        r.out());
    CliRun rem = tandem("history", "remediation/gpu-a-0");
    assertTrue(rem.out().startsWith("remediation/gpu-a-0: Observing since "), rem.out());

    CliRun none = tandem("history", "k9.example.com");
    assertEquals(1, none.code(), none.toString());
    assertEquals(
        "tandem: no remediation of Kubernetes node k9.example.com (workflow"
            + " remediation/k9.example.com never ran)\n",
        none.err());
  }
}
