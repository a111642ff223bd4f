package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.temporal.LocalTemporal;
import dev.tandem.workflows.Names;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With Temporal up and no worker polling, every command answers within seconds and says so, instead
 * of waiting a minute and blaming Temporal. The node and NodeSet workflows exist (started without a
 * worker), as after a worker crash.
 */
class CliWithoutWorkerTest {
  private static LocalTemporal temporal;
  private static WorkflowServiceStubs stubs;
  private static WorkflowClient client;

  @BeforeAll
  static void start() throws Exception {
    temporal = LocalTemporal.startTemporary();
    stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
    client = WorkflowClient.newInstance(stubs);
    startWithoutWorker(client, "NodeSet", Names.nodeSetWorkflowId("default", "gpu-a"));
    startWithoutWorker(client, "NodeLifecycle", Names.nodeWorkflowId("default", "gpu-a-0"));
  }

  @AfterAll
  static void stop() {
    stubs.shutdownNow();
    temporal.close();
  }

  /** Starts workflow {@code type} as {@code id} on Tandem's task queue; no worker need poll it. */
  static void startWithoutWorker(WorkflowClient client, String type, String id) {
    client
        .newUntypedWorkflowStub(
            type,
            WorkflowOptions.newBuilder().setWorkflowId(id).setTaskQueue(Names.TASK_QUEUE).build())
        .start();
  }

  private CliRun tandem(String... args) {
    return CliRun.fast(CliRun.concat(args, "--address", temporal.address()));
  }

  private String noWorker() {
    return "no Tandem worker is polling task queue \"tandem\" at "
        + temporal.address()
        + " (last poll: none in the last 5 minutes): start one (tandem worker, or tandem dev),"
        + " or check the worker Deployment";
  }

  @Test
  void statusSaysNoWorkerIsPolling() {
    CliRun r = tandem("status", "gpu-a");
    assertEquals(1, r.code(), r.toString());
    assertEquals("tandem: " + noWorker() + "\n", r.err());
    assertEquals("", r.out());
  }

  @Test
  void historySaysNoWorkerIsPolling() {
    CliRun r = tandem("history", "gpu-a-0");
    assertEquals(1, r.code(), r.toString());
    assertEquals("tandem: " + noWorker() + "\n", r.err());
  }

  @Test
  void drainIsRecordedAndTheUserToldItWaitsForAWorker() {
    CliRun r = tandem("drain", "gpu-a-0", "--reason", "no worker test");
    assertEquals(0, r.code(), r.toString());
    assertEquals(
        "drain requested for default/gpu-a-0 (owner manual); Slurm reason: tandem:manual: no"
            + " worker test\n",
        r.out());
    assertEquals(
        "tandem: warning: the drain is recorded and takes effect when a worker polls again: "
            + noWorker()
            + "\n",
        r.err());
    assertTrue(signalled("drain", "no worker test"), "the drain signal is in the history");
  }

  @Test
  void drainWithWaitFailsAtOnceAfterRecordingTheDrain() {
    CliRun r = tandem("drain", "gpu-a-0", "--reason", "wait test", "--wait");
    assertEquals(1, r.code(), r.toString());
    assertEquals(
        "tandem: the drain is recorded and takes effect when a worker polls again, so --wait"
            + " cannot wait: "
            + noWorker()
            + "\n",
        r.err());
    assertTrue(signalled("drain", "wait test"));
  }

  @Test
  void undrainIsRecordedUnchecked() {
    CliRun r = tandem("undrain", "gpu-a-0", "--reason", "undrain test");
    assertEquals(0, r.code(), r.toString());
    assertEquals(
        "undrain requested for default/gpu-a-0 (not checked: no worker to ask whether it holds a"
            + " manual drain)\n",
        r.out());
    assertEquals(
        "tandem: warning: the undrain is recorded and takes effect when a worker polls again: "
            + noWorker()
            + "\n",
        r.err());
    assertTrue(signalled("undrain", "undrain test"));
  }

  @Test
  void drainOfAnUnknownNodeSaysSoWithoutAWorker() {
    CliRun r = tandem("drain", "gpu-b-0", "--reason", "x");
    assertEquals(1, r.code(), r.toString());
    assertEquals(
        "tandem: no Tandem node 'gpu-b-0' in namespace 'default' (and no NodeSet 'gpu-b' there)."
            + " Node names are pod names: see `kubectl get pods -l tandem.dev/nodeset`.\n",
        r.err());
    CliRun known = tandem("undrain", "gpu-a-7");
    assertEquals(
        "tandem: no Tandem node 'gpu-a-7' in namespace 'default'. Node names are pod names: see"
            + " `kubectl get pods -l tandem.dev/nodeset`.\n",
        known.err());
  }

  @Test
  void remediateIsRecordedAndTheUserToldItWaitsForAWorker() {
    CliRun r = tandem("remediate", "k8s-7", "--reason", "Xid 79");
    assertEquals(0, r.code(), r.toString());
    assertEquals(
        "remediation of node k8s-7 requested (workflow remediation/k8s-7; it starts, or joins the"
            + " one that runs): Operator: Xid 79\n",
        r.out());
    assertEquals(
        "tandem: warning: the remediation is recorded and takes effect when a worker polls"
            + " again: "
            + noWorker()
            + "\n",
        r.err());
    assertTrue(signalled(Names.remediationWorkflowId("k8s-7"), "trigger", "Xid 79"));

    CliRun list = tandem("remediations");
    assertEquals(1, list.code(), list.toString());
    assertEquals("tandem: " + noWorker() + "\n", list.err());
  }

  /** The node workflow's history has a signal {@code name} whose input mentions {@code text}. */
  private static boolean signalled(String name, String text) {
    return signalled(Names.nodeWorkflowId("default", "gpu-a-0"), name, text);
  }

  private static boolean signalled(String workflowId, String name, String text) {
    List<HistoryEvent> events = client.fetchHistory(workflowId).getEvents();
    return events.stream()
        .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
        .map(HistoryEvent::getWorkflowExecutionSignaledEventAttributes)
        .anyMatch(a -> a.getSignalName().equals(name) && a.getInput().toString().contains(text));
  }
}
