package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.temporal.LocalTemporal;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.model.SlurmSettings;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.model.UpdateStrategy;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import dev.tandem.workflows.testing.FakeCluster;
import dev.tandem.workflows.testing.TandemWorkflows;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Bad-input catalogue (docs/reliability.md): wrong {@code tandem} command lines, run in-process
 * against a local Temporal with a worker (fake Kubernetes and Slurm) and a NodeSet gpu-a of two
 * ready nodes. A wrong command line exits 2 with picocli's or Tandem's message first on stderr
 * (then the usage), before anything is sent; a failed operation exits 1 with one line. Afterwards
 * every test checks that nothing was sent: no drain in Slurm, no new entry in gpu-a-0's history.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadCliArgsTest {
  private LocalTemporal temporal;
  private WorkflowServiceStubs stubs;
  private WorkerFactory workers;
  private WorkflowClient client;
  private final FakeCluster cluster = new FakeCluster();
  private int timelineBefore;

  @BeforeAll
  void start() throws Exception {
    temporal = LocalTemporal.startTemporary();
    stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
    client = WorkflowClient.newInstance(stubs);
    workers = WorkerFactory.newInstance(client);
    TandemWorkflows.register(VersionedWorker.newWorker(workers), cluster);
    workers.start();
    VersionedWorker.makeCurrent(stubs);
    NodeSetSpecView spec =
        new NodeSetSpecView(
            1,
            "uid",
            2,
            new PodTemplate("a", "{}", SlurmSettings.none()),
            UpdateStrategy.rolling("1"),
            DrainPolicy.waitForever(),
            DrainPolicy.waitForever(),
            List.of());
    NodeSetWorkflow wf =
        TandemWorkflows.startNodeSet(
            client,
            new NodeSetRef("default", "gpu-a"),
            spec,
            new Tuning(1, 10, 4000, 200, 120, false));
    long end = System.nanoTime() + 60_000_000_000L;
    while (!ready(wf)) {
      if (System.nanoTime() > end) {
        throw new AssertionError("gpu-a not ready: " + wf.status());
      }
      Thread.sleep(100);
    }
  }

  private static boolean ready(NodeSetWorkflow wf) {
    return TandemWorkflows.allReady(wf.status(), 2);
  }

  @AfterAll
  void stop() {
    if (workers != null) {
      workers.shutdownNow();
    }
    if (stubs != null) {
      stubs.shutdownNow();
    }
    if (temporal != null) {
      temporal.close();
    }
  }

  private NodeStatus node0() {
    return client
        .newWorkflowStub(NodeLifecycleWorkflow.class, Names.nodeWorkflowId("default", "gpu-a-0"))
        .status();
  }

  @BeforeEach
  void before() {
    timelineBefore = node0().timeline().size();
  }

  @AfterEach
  void nothingWasSent() {
    NodeStatus s = node0();
    assertEquals(NodePhase.READY, s.phase());
    assertEquals(timelineBefore, s.timeline().size(), "no signal reached gpu-a-0: " + s);
    assertTrue(
        cluster.calls().stream().noneMatch(c -> c.startsWith("drain")), cluster.calls().toString());
  }

  /** Runs {@code tandem args...} against the local Temporal (unless the args name an address). */
  private CliRun tandem(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    if (all.stream().noneMatch(a -> a.startsWith("--address"))
        && !all.isEmpty()
        && List.of("drain", "undrain", "status", "history").contains(all.get(0))) {
      all.add("--address");
      all.add(temporal.address());
    }
    return CliRun.of(all.toArray(String[]::new));
  }

  /** A wrong command line: exit 2, the message first, then the usage. */
  private static void usageError(String message, CliRun r) {
    assertEquals(2, r.code(), r.toString());
    assertEquals(message, r.firstErrorLine(), r.err());
    assertTrue(r.err().contains("Usage: tandem"), r.err());
  }

  /** picocli suggests instead of printing the usage. */
  @Test
  void unknownSubcommand() {
    CliRun r = tandem("drian", "gpu-a-0");
    assertEquals(2, r.code(), r.toString());
    assertEquals(
        "Unmatched arguments from index 0: 'drian', 'gpu-a-0'\nDid you mean: tandem drain or tandem"
            + " undrain or tandem remediate?\n",
        r.err());
  }

  @Test
  void unknownOption() {
    usageError("Unknown option: '--force'", tandem("drain", "gpu-a-0", "--reason", "x", "--force"));
  }

  @Test
  void missingReason() {
    usageError("Missing required option: '--reason=<reason>'", tandem("drain", "gpu-a-0"));
  }

  @Test
  void missingNode() {
    usageError("Missing required parameter: 'NODE'", tandem("history"));
  }

  @Test
  void undrainOwnerNobodyMayLift() {
    usageError(
        "--owner k8s-cordon: that drain is lifted by uncordoning the Kubernetes node",
        tandem("undrain", "gpu-a-0", "--owner", "k8s-cordon"));
    usageError(
        "--owner must be manual or remediation, got 'bob'",
        tandem("undrain", "gpu-a-0", "--owner", "bob"));
  }

  /** A remediation drain that is not there: exit 1 with what the node holds, nothing sent. */
  @Test
  void undrainRemediationNotHeld() {
    CliRun r = tandem("undrain", "gpu-a-0", "--owner", "remediation");
    assertEquals(1, r.code(), r.toString());
    assertTrue(r.err().contains("has no remediation drain to release"), r.err());
  }

  /** Used to exit 1, as if the operation had failed. */
  @Test
  void emptyReason() {
    usageError(
        "--reason must say why the node is drained", tandem("drain", "gpu-a-0", "--reason", " "));
  }

  /** Used to be accepted and shown as one line in Slurm, not as typed. */
  @Test
  void reasonOnTwoLines() {
    usageError(
        "--reason must be one line (no newlines or tabs)",
        tandem("drain", "gpu-a-0", "--reason", "disk\nfull"));
  }

  /** Used to be accepted and cut silently. */
  @Test
  void reasonTooLongForSlurm() {
    usageError(
        "--reason is 300 characters; Slurm's reason keeps 185 after \"tandem:manual: \"",
        tandem("drain", "gpu-a-0", "--reason", "r".repeat(300)));
  }

  /** Used to drain the node first and only then fail (exit 1) on the timeout. */
  @Test
  void badTimeoutIsRefusedBeforeTheDrain() {
    usageError(
        "Invalid value for option '--timeout': '5x' is not a duration like 30s, 10m or 1h",
        tandem("drain", "gpu-a-0", "--reason", "x", "--wait", "--timeout", "5x"));
  }

  @Test
  void durationGivenToAFlag() {
    usageError(
        "Unmatched argument at index 5: '5x'",
        tandem("drain", "gpu-a-0", "--reason", "x", "--wait", "5x"));
  }

  /** Used to end in a NumberFormatException stack trace after the undrain was sent. */
  @Test
  void timeoutBeyondAnyNumber() {
    usageError(
        "Invalid value for option '--timeout': '99999999999999999999h' is longer than 7 days",
        tandem("undrain", "gpu-a-0", "--wait", "--timeout", "99999999999999999999h"));
  }

  @Test
  void unknownOutputFormat() {
    usageError(
        "Invalid value for option '--output': expected one of [table, json] (case-sensitive) but"
            + " was 'yaml'",
        tandem("status", "gpu-a", "-o", "yaml"));
  }

  /** Used to ask Temporal and answer "no Tandem node 'GPU A'" (exit 1). */
  @Test
  void nodeNameThatCannotExist() {
    usageError(
        "'GPU A' is not a node name: nodes are named like their pods, e.g. gpu-a-0 or"
            + " team-x/gpu-a-0 (lower-case letters, digits and '-')",
        tandem("drain", "GPU A", "--reason", "x"));
  }

  @Test
  void namespaceThatCannotExist() {
    usageError(
        "'Team_X' is not a Kubernetes namespace (lower-case letters, digits and '-', at most 63)",
        tandem("history", "gpu-a-0", "-k", "Team_X"));
  }

  @Test
  void nodeSetNameThatCannotExist() {
    usageError(
        "'gpu.a' is not a NodeSet name (lower-case letters, digits and '-', at most 50)",
        tandem("status", "gpu.a"));
  }

  /** An operation that fails: exit 1, one line, with the nodes that do exist. */
  @Test
  void unknownNode() {
    CliRun r = tandem("drain", "gpu-a-9", "--reason", "x");
    assertEquals(1, r.code(), r.toString());
    assertEquals(
        "tandem: no Tandem node 'gpu-a-9' in namespace 'default'. NodeSet 'gpu-a' has 2 nodes;"
            + " did you mean: gpu-a-0, gpu-a-1?\n",
        r.err());
  }

  /** Used to be taken for a host name: "cannot reach Temporal" after the RPC timeout (exit 1). */
  @Test
  void addressWithoutAPort() {
    CliRun r = tandem("status", "gpu-a", "--address", "nonsense");
    assertEquals(2, r.code(), r.toString());
    assertEquals(
        "tandem: configuration error: Temporal address \"nonsense\" (TEMPORAL_ADDRESS or"
            + " --address) is not host:port, e.g. 127.0.0.1:7233\n",
        r.err());
  }

  @Test
  void addressWithAPortOutOfRange() {
    CliRun r = tandem("drain", "gpu-a-0", "--reason", "x", "--address", "127.0.0.1:99999");
    assertEquals(2, r.code(), r.toString());
    assertEquals(
        "tandem: configuration error: Temporal address \"127.0.0.1:99999\" (TEMPORAL_ADDRESS or"
            + " --address) is not host:port, e.g. 127.0.0.1:7233\n",
        r.err());
  }
}
