package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.TimelineEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Temporal's own CLI, run as an operator runs it (docs/runbook.md, "The Temporal CLI"): the real
 * {@code temporal} binary of the local Temporal server, against the whole stack with the NodeSet
 * {@code e2e} of two nodes, each command as documented plus {@code --address}:
 *
 * <pre>
 * temporal workflow list --query 'TandemNodeSet="default/e2e"'
 * temporal workflow list --query 'TandemNode="e2e-0"'
 * temporal workflow query --workflow-id node/default/e2e-0 --type status
 * temporal workflow describe --workflow-id node/default/e2e-0
 * temporal workflow metadata --workflow-id node/default/e2e-0
 * temporal workflow signal --workflow-id node/default/e2e-0 --name drain --input 'not json'
 * temporal workflow signal --workflow-id node/default/e2e-0 --name drain --input '{"owner":"nobody"}'
 * temporal workflow signal --workflow-id node/default/e2e-0 --name drain --input '{"owner":"manual"}'
 * temporal workflow signal --workflow-id node/default/e2e-0 --name drain \
 *   --input '{"owner":"manual","reason":"GPU 3 Xid 79, RMA 1234"}'
 * temporal workflow signal --workflow-id node/default/e2e-0 --name undrain \
 *   --input '{"owner":"manual","reason":"fixed"}'
 * temporal workflow signal --workflow-id node/default/e2e-0 --name resync
 * </pre>
 *
 * <p>The list finds every node (visibility is eventually consistent: waited for, bounded); query,
 * describe and metadata show the phase; a payload that is not JSON is refused by the CLI (exit 1),
 * one Tandem cannot use is recorded as {@code signal-rejected} with why and changes nothing in
 * Slurm; the drain and the undrain reach the real Slurm.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TemporalCliE2EIT {
  private static final String SET = "e2e";
  private static final List<String> NODES = List.of("e2e-0", "e2e-1");
  private static final String NODE = "e2e-0";
  private static final String WORKFLOW = "node/default/" + NODE;
  private static final Duration LIMIT = Duration.ofSeconds(60);
  private static final Duration EVERY = Duration.ofMillis(250);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);
  @AutoClose private static E2EStack e2e;
  private static Path temporal;

  @BeforeAll
  static void start() throws Exception {
    e2e = E2EStack.startWithNodeSet(SET, NODES.size());
    temporal = e2e.stack.temporal().binary();
    assertTrue(Files.isExecutable(temporal), "the temporal binary: " + temporal);
  }

  /** Every test starts from ready nodes that Slurm shows idle with no flag. */
  @BeforeEach
  void baseline() {
    for (String n : NODES) {
      e2e.awaitPhase(n, NodePhase.READY);
      Await.until(n + " idle in Slurm", LIMIT, EVERY, () -> slurm(n), TemporalCliE2EIT::idle);
    }
  }

  /** One run of {@code temporal}: its exit code and what it printed (stdout and stderr). */
  record Run(int code, String output) {
    Run ok() {
      assertEquals(0, code, "exit code; output:\n" + output);
      return this;
    }
  }

  /**
   * The real {@code temporal} with {@code args} and {@code --address} of the stack's server; no
   * {@code TEMPORAL_*} variable of the test's environment reaches it, so it talks to the namespace
   * {@code default}, as the documented commands do.
   */
  private static Run temporal(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(temporal.toString());
    cmd.addAll(List.of(args));
    cmd.add("--address");
    cmd.add(e2e.stack.temporalAddress());
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("TEMPORAL_"));
    try {
      Process p = pb.start();
      p.getOutputStream().close();
      if (!p.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(String.join(" ", cmd) + " did not end in " + COMMAND_TIMEOUT);
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      System.out.println(
          "$ " + String.join(" ", cmd) + "\n" + out + "(exit " + p.exitValue() + ")");
      return new Run(p.exitValue(), out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static SlurmNode slurm(String node) {
    return e2e.slurmNode(node).orElseThrow(() -> new AssertionError(node + " not in Slurm"));
  }

  private static boolean idle(SlurmNode n) {
    return "idle".equals(n.state()) && n.flags().isEmpty();
  }

  private static List<TimelineEntry> rejections(NodeStatus s) {
    return s.timeline().stream().filter(t -> t.event().equals("signal-rejected")).toList();
  }

  @Test
  @Order(1)
  void listFindsEveryNodeOfTheNodeSet() {
    Run list =
        Await.until(
            "temporal workflow list to show every node of " + SET,
            LIMIT,
            Duration.ofSeconds(1),
            () -> temporal("workflow", "list", "--query", "TandemNodeSet=\"default/" + SET + "\""),
            r ->
                r.code() == 0
                    && NODES.stream().allMatch(n -> r.output().contains("node/default/" + n)));
    List<String> nodeRows = list.output().lines().filter(l -> l.contains(" node/")).toList();
    assertEquals(NODES.size(), nodeRows.size(), list.output());
    assertTrue(
        nodeRows.stream().allMatch(l -> l.contains("Running") && l.contains("NodeLifecycle")),
        list.output());
    assertTrue(list.output().contains("nodeset/default/" + SET), list.output());

    // And one node by its node attribute, as the runbook's other queries do.
    Run one = temporal("workflow", "list", "--query", "TandemNode=\"" + NODE + "\"").ok();
    assertTrue(one.output().contains(WORKFLOW), one.output());
    assertFalse(one.output().contains("node/default/e2e-1"), one.output());
  }

  @Test
  @Order(2)
  void queryDescribeAndMetadataShowTheNode() {
    Run query = query();
    assertTrue(query.output().contains("\"phase\":\"READY\""), query.output());
    assertTrue(query.output().contains("\"pod\":\"" + NODE + "\""), query.output());

    Run describe = temporal("workflow", "describe", "--workflow-id", WORKFLOW).ok();
    assertTrue(
        describe.output().matches("(?s).*WorkflowId +" + WORKFLOW + "\n.*"), describe.output());
    assertTrue(describe.output().matches("(?s).*Type +NodeLifecycle\n.*"), describe.output());
    assertTrue(describe.output().matches("(?s).*TaskQueue +tandem\n.*"), describe.output());
    assertTrue(
        describe.output().matches("(?s).*ParentWorkflowId +nodeset/default/" + SET + "\n.*"),
        describe.output());
    assertTrue(
        describe
            .output()
            .contains("StaticSummary  \"Slurm node " + NODE + " of NodeSet default/" + SET + "\""),
        describe.output());
    assertEquals("ready", searchAttribute(describe, "TandemPhase"));
    assertEquals("default/" + SET, searchAttribute(describe, "TandemNodeSet"));
    assertEquals(NODE, searchAttribute(describe, "TandemNode"));

    Run metadata = metadata();
    assertTrue(
        metadata.output().contains("Current Details:\n    phase ready; slurm idle"),
        metadata.output());
  }

  @Test
  @Order(3)
  void garbageIsRefusedOrRecordedAndChangesNothing() throws Exception {
    // Not JSON at all: the CLI refuses it before anything reaches Temporal.
    Run notJson = signal("drain", "not json");
    assertEquals(1, notJson.code(), notJson.output());
    assertTrue(notJson.output().contains("input #1 is not valid JSON"), notJson.output());

    // JSON that Tandem cannot use: delivered, recorded as rejected with why, not acted on.
    int before = rejections(e2e.nodeStatus(NODE)).size();
    assertTrue(
        signal("drain", "{\"owner\":\"nobody\"}")
            .ok()
            .output()
            .contains("Signal workflow succeeded"));
    signal("drain", "{\"owner\":\"manual\"}").ok();
    List<String> why =
        Await.until(
            "both rejections in " + NODE + "'s timeline",
            LIMIT,
            EVERY,
            () -> rejections(e2e.nodeStatus(NODE)).stream().map(TimelineEntry::detail).toList(),
            l -> l.size() >= before + 2);
    why = why.subList(why.size() - 2, why.size());
    assertEquals(
        "drain: \"owner\" must be one of remediation, k8s-unhealthy, k8s-cordon, manual,"
            + " pod-deleted, update, scale-down, got \"nobody\"",
        why.get(0));
    assertEquals("drain: \"reason\" is required", why.get(1), why.toString());

    // What the operator sees with the status query: both, with what was wrong.
    Run query = query();
    assertTrue(query.output().contains("\"event\":\"signal-rejected\""), query.output());
    assertTrue(query.output().contains("got \\\"nobody\\\""), query.output());
    assertTrue(query.output().contains("drain: \\\"reason\\\" is required"), query.output());

    // Nothing changed: several Slurm polls and node passes later the node is still in service.
    Thread.sleep(3_000);
    NodeStatus s = e2e.nodeStatus(NODE);
    assertEquals(NodePhase.READY, s.phase());
    assertTrue(s.holds().isEmpty(), "holds: " + s.holds());
    SlurmNode n = slurm(NODE);
    assertFalse(n.drainFlag(), "drained by a rejected signal: " + n);
    assertTrue(idle(n), n.toString());
  }

  @Test
  @Order(4)
  void drainAndUndrainBySignalReachSlurm() throws Exception {
    String reason = "GPU 3 Xid 79, RMA 1234";
    signal("drain", "{\"owner\":\"manual\",\"reason\":\"" + reason + "\"}").ok();
    SlurmNode drained =
        Await.until("Slurm drains " + NODE, LIMIT, EVERY, () -> slurm(NODE), SlurmNode::drainFlag);
    assertEquals("tandem:manual: " + reason, drained.reason());
    assertTrue(idle(slurm("e2e-1")), "only " + NODE + " is drained");
    Run query =
        Await.until(
            NODE + " drained in its status query",
            LIMIT,
            EVERY,
            TemporalCliE2EIT::query,
            r -> r.code() == 0 && r.output().contains("\"phase\":\"DRAINED\""));
    assertTrue(
        query.output().contains("\"holds\":{\"manual\":\"tandem:manual: " + reason + "\"}"),
        query.output());
    Run describe = temporal("workflow", "describe", "--workflow-id", WORKFLOW).ok();
    assertEquals("drained", searchAttribute(describe, "TandemPhase"));
    Await.until(
        "details: drained, held by manual",
        LIMIT,
        EVERY,
        TemporalCliE2EIT::metadata,
        r -> r.output().contains("phase drained; ") && r.output().contains("; held by manual"));

    signal("undrain", "{\"owner\":\"manual\",\"reason\":\"fixed\"}").ok();
    Await.until("Slurm undrains " + NODE, LIMIT, EVERY, () -> slurm(NODE), TemporalCliE2EIT::idle);
    e2e.awaitPhase(NODE, NodePhase.READY);
    assertTrue(e2e.nodeStatus(NODE).holds().isEmpty());
    assertTrue(query().output().contains("\"holds\":{}"));

    // The runbook's nudge: a signal without payload, taken (not rejected), nothing drained.
    int rejected = rejections(e2e.nodeStatus(NODE)).size();
    signal("resync", null).ok();
    Thread.sleep(2_000);
    assertEquals(rejected, rejections(e2e.nodeStatus(NODE)).size());
    assertTrue(idle(slurm(NODE)));
    assertEquals(NodePhase.READY, e2e.nodeStatus(NODE).phase());
  }

  /** {@code temporal workflow signal --workflow-id node/default/e2e-0 --name NAME [--input IN]}. */
  private static Run signal(String name, String input) {
    List<String> args =
        new ArrayList<>(List.of("workflow", "signal", "--workflow-id", WORKFLOW, "--name", name));
    if (input != null) {
      args.addAll(List.of("--input", input));
    }
    return temporal(args.toArray(new String[0]));
  }

  /** {@code temporal workflow query --workflow-id node/default/e2e-0 --type status}. */
  private static Run query() {
    return temporal("workflow", "query", "--workflow-id", WORKFLOW, "--type", "status").ok();
  }

  /** {@code temporal workflow metadata --workflow-id node/default/e2e-0}. */
  private static Run metadata() {
    return temporal("workflow", "metadata", "--workflow-id", WORKFLOW).ok();
  }

  /**
   * A Keyword search attribute's value as {@code temporal workflow describe} prints it: the raw
   * payload, e.g. {@code TandemPhase:metadata:{...} metadata:{...} data:"\"ready\""}.
   */
  private static String searchAttribute(Run describe, String name) {
    Matcher m =
        Pattern.compile(
                Pattern.quote(name)
                    + ":(?:metadata:\\{[^}]*\\} )*data:\"\\\\\"([^\\\\\"]*)\\\\\"\"")
            .matcher(describe.output());
    assertTrue(m.find(), name + " in\n" + describe.output());
    return m.group(1);
  }
}
