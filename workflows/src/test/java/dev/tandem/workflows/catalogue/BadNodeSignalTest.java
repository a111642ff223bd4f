package dev.tandem.workflows.catalogue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.TimelineEntry;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Bad-input catalogue (docs/reliability.md): signal payloads sent to a running node workflow with
 * the Temporal SDK's untyped stub, as {@code temporal workflow signal --input ...} would. Each ends
 * as one {@code signal-rejected} entry in the node's timeline ({@code tandem history}) with the
 * exact text below; the node stays where it was (no Slurm call, no pod created or deleted), keeps
 * answering queries, and acts on the next valid signal.
 */
class BadNodeSignalTest extends WorkflowTestBase {

  private static final String OWNERS =
      "remediation, k8s-unhealthy, k8s-cordon, manual, pod-deleted, update, scale-down";

  private NodeLifecycleWorkflow node;
  private WorkflowStub raw;

  private void readyNode(String set) {
    node = startNode(set, 0, "a");
    await("ready", 60, () -> phaseIs(set + "-0", NodePhase.READY));
    raw = client.newUntypedWorkflowStub(Names.nodeWorkflowId(NS, set + "-0"));
  }

  /** Sends one payload and returns the single rejection it caused; asserts nothing changed. */
  private String rejectionOf(String pod, String signal, Object payload) {
    NodeStatus before = nodeStatus(pod);
    int calls = cluster.calls().size();
    raw.signal(signal, payload);
    env.sleep(Duration.ofSeconds(15)); // a few polls and a resync of virtual time
    NodeStatus after = nodeStatus(pod); // still answers queries
    List<TimelineEntry> added =
        after.timeline().subList(before.timeline().size(), after.timeline().size());
    assertEquals(1, added.size(), "exactly one timeline entry: " + added);
    assertEquals("signal-rejected", added.get(0).event());
    assertEquals(NodePhase.READY, after.phase(), "phase unchanged");
    assertEquals(before.holds(), after.holds(), "holds unchanged");
    assertEquals(before.revision(), after.revision());
    assertEquals(before.targetRevision(), after.targetRevision());
    assertEquals(before.operation(), after.operation());
    assertEquals(1, cluster.podCreations(pod), "no pod created");
    assertTrue(cluster.pods().containsKey(pod), "pod not deleted");
    List<String> newCalls = cluster.calls().subList(calls, cluster.calls().size());
    assertTrue(
        newCalls.stream().noneMatch(c -> c.startsWith("drain") || c.startsWith("forceDown")),
        "no Slurm state change: " + newCalls);
    return added.get(0).detail();
  }

  /** The workflow acts on the next valid signal: it was never wedged. */
  private void stillServes(String pod) {
    node.drain(NodeCommand.of("manual", "valid after garbage"));
    await("drained", 60, () -> phaseIs(pod, NodePhase.DRAINED));
    assertEquals("tandem:manual: valid after garbage", cluster.slurmNode(pod).reason());
    node.undrain(NodeCommand.of("manual", "ok"));
    await("ready", 60, () -> phaseIs(pod, NodePhase.READY));
  }

  @Test
  void drainUndrainDeletePayloads() {
    readyNode("cmd");
    String object = "payload must be a JSON object like {\"owner\":\"manual\",\"reason\":\"...\"}";
    assertEquals("drain: " + object + ", got: 42", rejectionOf("cmd-0", "drain", 42));
    assertEquals(
        "drain: " + object + ", got: [\"manual\",\"x\"]",
        rejectionOf("cmd-0", "drain", List.of("manual", "x")));
    assertEquals(
        "drain: " + object + ", got: \"garbage\"", rejectionOf("cmd-0", "drain", "garbage"));
    assertEquals("drain: empty payload", rejectionOf("cmd-0", "drain", null));
    assertEquals(
        "drain: \"owner\" is required (one of " + OWNERS + ")",
        rejectionOf("cmd-0", "drain", Map.of()));
    assertEquals(
        "drain: \"owner\" must be one of " + OWNERS + ", got \"nobody\"",
        rejectionOf("cmd-0", "drain", Map.of("owner", "nobody", "reason", "x")));
    assertEquals(
        "undrain: \"owner\" must be one of " + OWNERS + ", got \"{\"x\":1}\"",
        rejectionOf("cmd-0", "undrain", Map.of("owner", Map.of("x", 1))));
    assertEquals(
        "delete: \"policy.timeoutSeconds\" must be a non-negative number",
        rejectionOf(
            "cmd-0",
            "delete",
            Map.of("owner", "scale-down", "policy", Map.of("timeoutSeconds", -5))));
    assertEquals(
        "delete: \"policy.onTimeout\" must be WAIT or FORCE",
        rejectionOf(
            "cmd-0",
            "delete",
            Map.of("owner", "scale-down", "policy", Map.of("onTimeout", "LATER"))));
    assertEquals(
        "delete: \"policy\" must be an object {\"timeoutSeconds\":N,\"onTimeout\":\"WAIT\"}",
        rejectionOf("cmd-0", "delete", Map.of("owner", "scale-down", "policy", "soon")));
    stillServes("cmd-0");
  }

  @Test
  void updatePayloads() {
    readyNode("upd");
    assertEquals(
        "update: payload must be a JSON object with the fields of UpdateCommand, got: \"garbage\"",
        rejectionOf("upd-0", "update", "garbage"));
    assertEquals(
        "update: \"target.revision\" is required", rejectionOf("upd-0", "update", Map.of()));
    assertEquals(
        "update: \"immediate\": \"soon\" is not true or false",
        rejectionOf(
            "upd-0", "update", Map.of("target", Map.of("revision", "b"), "immediate", "soon")));
    assertEquals(
        "update: \"policy\": {\"timeoutSeconds\":-1} is not a valid DrainPolicy",
        rejectionOf(
            "upd-0",
            "update",
            Map.of(
                "target",
                Map.of("revision", "b"),
                "immediate",
                true,
                "policy",
                Map.of("timeoutSeconds", -1))));
    stillServes("upd-0");
  }

  @Test
  void watcherObservationPayloads() {
    readyNode("obs");
    assertEquals(
        "podObserved: payload must be a JSON object with the fields of PodView, got: 42",
        rejectionOf("obs-0", "podObserved", 42));
    assertEquals(
        "podObserved: \"createdAt\": \"yesterday\" is not a time like \"2025-01-31T12:00:00Z\"",
        rejectionOf(
            "obs-0",
            "podObserved",
            Map.of("name", "obs-0", "exists", true, "createdAt", "yesterday")));
    assertEquals(
        "podObserved: pod \"other-0\" is not this node's pod (obs-0)",
        rejectionOf("obs-0", "podObserved", Map.of("name", "other-0", "exists", false)));
    assertEquals("podObserved: empty payload", rejectionOf("obs-0", "podObserved", null));
    assertEquals(
        "slurmObserved: payload must be a JSON object with the fields of SlurmNodeView, got:"
            + " [1,2]",
        rejectionOf("obs-0", "slurmObserved", List.of(1, 2)));
    assertEquals(
        "slurmObserved: \"flags\": \"DRAIN\" is not a list",
        rejectionOf(
            "obs-0", "slurmObserved", Map.of("name", "obs-0", "known", true, "flags", "DRAIN")));
    assertEquals(
        "slurmObserved: \"known\": \"perhaps\" is not true or false; \"observedAt\": \"noon\" is"
            + " not a time like \"2025-01-31T12:00:00Z\"",
        rejectionOf(
            "obs-0",
            "slurmObserved",
            Map.of("name", "obs-0", "known", "perhaps", "observedAt", "noon")));
    stillServes("obs-0");
  }

  /**
   * Every node signal with a payload answers JSON that does not parse, binary, bytes that are not
   * UTF-8 and each missing required member ({@link RawSignals}) with one {@code signal-rejected}
   * entry and one log line, never again on replay; the node stays ready and still serves.
   */
  @Test
  void undecodableAndIncompletePayloads() throws Exception {
    readyNode("raw");
    Map<String, String> examples =
        Map.of(
            "drain", "{\"owner\":\"manual\",\"reason\":\"r\"}",
            "undrain", "{\"owner\":\"manual\",\"reason\":\"r\"}",
            "delete", "{\"owner\":\"scale-down\",\"reason\":\"r\"}",
            "update", "{\"target\":{\"revision\":\"b\"},\"immediate\":true}",
            "podObserved", "{\"name\":\"raw-0\",\"exists\":true}",
            "slurmObserved", "{\"name\":\"raw-0\",\"known\":true}");
    try (RawSignals raws = new RawSignals(client, Names.nodeWorkflowId(NS, "raw-0"))) {
      List<RawSignals.Case> cases = RawSignals.cases(NodeLifecycleWorkflow.class, examples);
      cases.add(
          new RawSignals.Case(
              "drian",
              RawSignals.json("{}"),
              "drian: no such signal (this workflow takes [delete, drain, podObserved, resync,"
                  + " slurmObserved, undrain, update])"));
      raws.sendAll(
          cases,
          () ->
              nodeStatus("raw-0").timeline().stream()
                  .filter(t -> t.event().equals("signal-rejected"))
                  .map(TimelineEntry::detail)
                  .toList(),
          () -> env.sleep(Duration.ofSeconds(2)));
      assertEquals(NodePhase.READY, nodeStatus("raw-0").phase());
      assertEquals(Map.of(), nodeStatus("raw-0").holds());
      raws.replayLogsNothing(dev.tandem.workflows.node.NodeLifecycleWorkflowImpl.class);
    }
    stillServes("raw-0");
  }

  /**
   * A reason with newlines and 5000 characters (a cordon annotation may hold 256 KB): one line in
   * Slurm, the timeline and {@code tandem history}, cut to what fits.
   */
  @Test
  void reasonIsOneBoundedLine() {
    readyNode("why");
    String reason = "disk\nfull\t" + "x".repeat(5000);
    raw.signal("drain", Map.of("owner", "k8s-cordon", "reason", reason));
    await("drained", 60, () -> phaseIs("why-0", NodePhase.DRAINED));
    String slurm = cluster.slurmNode("why-0").reason();
    assertEquals("tandem:k8s-cordon: disk full " + "x".repeat(200 - 29), slurm);
    assertEquals(200, slurm.length());
    TimelineEntry requested =
        nodeStatus("why-0").timeline().stream()
            .filter(t -> t.event().equals("drain-requested"))
            .findFirst()
            .orElseThrow();
    assertEquals("k8s-cordon: disk full " + "x".repeat(190), requested.detail());
  }
}
