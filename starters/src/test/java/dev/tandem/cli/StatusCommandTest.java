package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.NodeSummary;
import dev.tandem.workflows.model.SlurmCounts;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code tandem status} puts what is wrong above the node table, in table and JSON. */
class StatusCommandTest {
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

  private static Condition c(String type, String status, String reason, String message) {
    return new Condition(type, status, reason, message, T);
  }

  private static NodeSetSnapshot snapshot(List<Condition> conditions) {
    return new NodeSetSnapshot(
        new NodeSetRef("default", "gpu-a"),
        false,
        3,
        new NodeSetStatusView(
            3,
            2,
            3,
            new SlurmCounts(2, 0, 0, 1, 0),
            "r1",
            "r1",
            4,
            "tandem.dev/nodeset=gpu-a",
            conditions),
        List.of(
            new NodeSummary("gpu-a-0", 0, NodePhase.READY, "r1", "idle", null, "k1", null),
            new NodeSummary(
                "gpu-a-1", 1, NodePhase.READY, "r1", "idle+DRAIN", "disk", "k2", null)));
  }

  private static final List<Condition> TROUBLE =
      List.of(
          c(
              "Ready",
              "False",
              "NodesNotReady",
              "2/3 nodes ready; gpu-a-1: drained by an administrator: disk"),
          c("Progressing", "True", "RollingUpdate", "2/3 nodes at revision r1"),
          c("Degraded", "False", "NoProblems", "no node reports a problem"),
          c("InvalidSpec", "False", "Valid", "the spec is valid"),
          c("SlurmReachable", "False", "Unreachable", "slurmrestd: connection refused"),
          c("KubernetesReachable", "Unknown", "NoReport", "no report from the watchers yet"));

  @Test
  void conditionsThatNeedAttentionComeBeforeTheTable() {
    String out = StatusCommand.render(snapshot(TROUBLE));
    List<String> lines = out.lines().toList();
    assertEquals("NodeSet default/gpu-a: 2/3 ready, 3 at revision r1", lines.get(0));
    assertEquals(
        "  ! Ready=False (NodesNotReady): 2/3 nodes ready; gpu-a-1: drained by an administrator:"
            + " disk",
        lines.get(1));
    assertEquals(
        "  ! SlurmReachable=False (Unreachable): slurmrestd: connection refused", lines.get(2));
    assertEquals(
        "  ! KubernetesReachable=Unknown (NoReport): no report from the watchers yet",
        lines.get(3));
    assertTrue(lines.get(4).startsWith("NODE "), out);
    assertEquals(7, lines.size(), out);
  }

  @Test
  void anAutoscaledNodeSetSaysWhatItsAutoscalerDecidedAndWhy() {
    String message =
        "3 replicas (min 0, max 8); last change: 1 pending job(s) ask for 3 node(s); 0 busy;"
            + " queue: 0 job(s) ask for 0 node(s), 3 node(s) busy";
    String out =
        StatusCommand.render(
            snapshot(
                List.of(
                    c("Ready", "True", "AllNodesReady", "3/3 nodes ready"),
                    c("Autoscaled", "True", "Scaled", message))));
    List<String> lines = out.lines().toList();
    assertEquals("  Autoscaled: " + message, lines.get(1));
    assertTrue(lines.get(2).startsWith("NODE "), out);
  }

  @Test
  void aHealthyNodeSetShowsOnlyTheTable() {
    List<Condition> fine =
        List.of(
            c("Ready", "True", "AllNodesReady", "3/3 nodes ready"),
            c("Progressing", "False", "Stable", "all nodes at revision r1"),
            c("Degraded", "False", "NoProblems", "no node reports a problem"),
            c("InvalidSpec", "False", "Valid", "the spec is valid"),
            c("SlurmReachable", "True", "Reachable", "slurmrestd answers"),
            c("KubernetesReachable", "True", "Reachable", "API answers"));
    List<String> lines = StatusCommand.render(snapshot(fine)).lines().toList();
    assertTrue(lines.get(1).startsWith("NODE "), lines.toString());
  }

  @Test
  void jsonKeepsTheSnapshotAndAddsAttention() throws Exception {
    JsonNode doc = Output.JSON.readTree(Output.json(StatusCommand.json(snapshot(TROUBLE))));
    assertEquals("gpu-a", doc.path("ref").path("name").asText());
    assertEquals(2, doc.path("status").path("readyReplicas").asInt());
    assertEquals(6, doc.path("status").path("conditions").size());
    assertEquals(2, doc.path("nodes").size());
    JsonNode att = doc.path("attention");
    assertEquals(3, att.size(), att.toString());
    assertEquals("Ready", att.get(0).path("type").asText());
    assertEquals("SlurmReachable", att.get(1).path("type").asText());
    assertEquals("False", att.get(1).path("status").asText());
    assertEquals("slurmrestd: connection refused", att.get(1).path("message").asText());
    assertEquals("KubernetesReachable", att.get(2).path("type").asText());
  }
}
