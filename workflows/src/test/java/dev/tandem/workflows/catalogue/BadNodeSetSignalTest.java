package dev.tandem.workflows.catalogue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.TimelineEntry;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import dev.tandem.workflows.nodeset.NodeSetWorkflowImpl;
import dev.tandem.workflows.testing.WorkflowTestBase;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Bad-input catalogue (docs/reliability.md): signal payloads sent to a running NodeSet workflow
 * with the SDK's untyped stub. Each is logged and listed, with the exact text below, in the status
 * query's {@code rejectedSignals} ({@code tandem status} shows the latest); the spec in force, the
 * nodes and the NodeSet's conditions stay as they were, and a valid spec still applies afterwards.
 */
class BadNodeSetSignalTest extends WorkflowTestBase {

  private static final String OWNERS =
      "remediation, k8s-unhealthy, k8s-cordon, manual, pod-deleted, update, scale-down";

  @Test
  void everyGarbagePayloadIsListedAndNothingChanges() {
    NodeSetWorkflow wf = startNodeSet("junk", spec(1, 2, "a"));
    await("2 ready", 120, () -> allReady(wf, 2));
    WorkflowStub raw = client.newUntypedWorkflowStub(Names.nodeSetWorkflowId(NS, "junk"));
    int creations = cluster.podCreations("junk-0") + cluster.podCreations("junk-1");
    var statusBefore = cluster.status("default/junk");

    List<Object[]> sent =
        List.of(
            new Object[] {"specChanged", "garbage"},
            new Object[] {"specChanged", Map.of("generation", 9, "replicas", "many")},
            new Object[] {"specChanged", null},
            new Object[] {"nodeReported", true},
            new Object[] {"nodeReported", Map.of("pod", "junk-0", "phase", "EXPLODED", "seq", 99)},
            new Object[] {"nodeReported", Map.of("ordinal", 0)},
            new Object[] {"clusterHealth", "down"},
            new Object[] {"clusterHealth", Map.of("component", "slurm", "reachable", "maybe")},
            new Object[] {"demandObserved", Map.of("nodes", "lots")},
            new Object[] {"delete", Map.of()});
    for (Object[] s : sent) {
      raw.signal((String) s[0], s[1]);
    }
    env.sleep(Duration.ofSeconds(30));

    NodeSetSnapshot snap = wf.status();
    assertEquals(
        List.of(
            "specChanged: payload must be a JSON object with the fields of NodeSetSpecView, got:"
                + " \"garbage\"",
            "specChanged: \"replicas\": \"many\" is not a whole number",
            "specChanged: empty payload",
            "nodeReported: payload must be a JSON object with the fields of NodeReport, got: true",
            "nodeReported: \"phase\": \"EXPLODED\" is not one of PROVISIONING, REGISTERING, READY,"
                + " DRAINING, DRAINED, UPDATING, DELETING, DELETED",
            "nodeReported: \"pod\" is required; \"phase\" is required",
            "clusterHealth: payload must be a JSON object with the fields of ClusterHealth, got:"
                + " \"down\"",
            "clusterHealth: \"reachable\": \"maybe\" is not true or false",
            "demandObserved: \"nodes\": \"lots\" is not a whole number",
            "delete: \"owner\" is required (one of " + OWNERS + ")"),
        snap.rejectedSignals().stream().map(TimelineEntry::detail).toList());
    snap.rejectedSignals().forEach(e -> assertEquals("signal-rejected", e.event()));

    // Nothing changed: spec in force, nodes, pods, conditions.
    assertEquals(2, snap.desiredReplicas());
    assertEquals(false, snap.deleting());
    assertEquals(2, snap.nodes().size());
    assertEquals(
        creations, cluster.podCreations("junk-0") + cluster.podCreations("junk-1"), "no pod");
    assertEquals(2, cluster.pods().size());
    assertFalse(cluster.status("default/junk").condition(Condition.INVALID_SPEC).statusTrue());
    assertEquals(statusBefore, cluster.status("default/junk"), "status unchanged");
    assertEquals(List.of(), cluster.released(), "finalizer kept");

    // Still acts on a valid spec.
    wf.specChanged(spec(2, 3, "a"));
    await("3 ready", 120, () -> allReady(wf, 3));
  }

  /**
   * Every NodeSet signal with a payload answers JSON that does not parse, binary, bytes that are
   * not UTF-8 and each missing required member ({@link RawSignals}) with one entry in {@code
   * rejectedSignals} and one log line, never again on replay; the NodeSet is not deleted.
   */
  @Test
  void undecodableAndIncompletePayloads() throws Exception {
    NodeSetWorkflow wf = startNodeSet("raw", spec(1, 1, "a"));
    await("1 ready", 120, () -> allReady(wf, 1));
    Map<String, String> examples =
        Map.of(
            "specChanged", "{\"generation\":2,\"uid\":\"uid-ns\",\"replicas\":1}",
            "delete", "{\"owner\":\"scale-down\",\"reason\":\"r\"}",
            "nodeReported", "{\"pod\":\"raw-0\",\"ordinal\":0,\"phase\":\"READY\",\"seq\":1}",
            "clusterHealth", "{\"component\":\"slurm\",\"reachable\":true}",
            "drainsHeld", "{\"nodes\":[]}",
            "demandObserved", "{\"nodes\":0,\"jobs\":0,\"busy\":0,\"unfit\":0}");
    try (RawSignals raws = new RawSignals(client, Names.nodeSetWorkflowId(NS, "raw"))) {
      raws.sendAll(
          RawSignals.cases(NodeSetWorkflow.class, examples),
          () -> wf.status().rejectedSignals().stream().map(TimelineEntry::detail).toList(),
          () -> env.sleep(Duration.ofSeconds(2)));
      raws.replayLogsNothing(NodeSetWorkflowImpl.class);
    }
    NodeSetSnapshot snap = wf.status();
    assertEquals(false, snap.deleting());
    assertEquals(1, snap.desiredReplicas());
  }
}
