package dev.tandem.k8s;

import static dev.tandem.k8s.Fixtures.json;
import static dev.tandem.k8s.Fixtures.with;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.workflows.model.Autoscaling;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.nodeset.AutoscalingRules;
import dev.tandem.workflows.nodeset.NodeSetSpecValidator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code spec.autoscaling} to {@link Autoscaling}, and every problem it can have. */
class AutoscalingSpecTest {

  private static NodeSetSpecView view(JsonNode autoscaling) {
    return NodeSetSpecs.toView(with(Fixtures.example(), "spec.autoscaling", autoscaling));
  }

  private static NodeSetSpecView view(String autoscalingJson) {
    return view(json(autoscalingJson));
  }

  @Test
  void absentMeansNotAutoscaled() {
    NodeSetSpecView v = view((JsonNode) null);
    assertEquals(List.of(), v.problems());
    assertNull(v.autoscaling());
    // JSON null is absent too, as everywhere in Kubernetes.
    assertNull(view("null").autoscaling());
    assertEquals(List.of(), view("null").problems());
  }

  @Test
  void onlyMaxReplicasTakesEveryDefault() {
    NodeSetSpecView v = view("{\"maxReplicas\":8}");
    assertEquals(List.of(), v.problems());
    assertEquals(
        new Autoscaling(
            0, 8, Autoscaling.DEFAULT_IDLE_SECONDS, Autoscaling.DEFAULT_SCALE_UP_DELAY_SECONDS),
        v.autoscaling());
    assertEquals(new Autoscaling(0, 8, 600, 5), v.autoscaling(), "10m and 5s, as the CRD says");
  }

  @Test
  void readsEveryField() {
    NodeSetSpecView v =
        view(
            "{\"minReplicas\":2,\"maxReplicas\":16,\"idleTime\":\"1h30m\","
                + "\"scaleUpDelay\":\"30s\"}");
    assertEquals(List.of(), v.problems());
    assertEquals(new Autoscaling(2, 16, 5400, 30), v.autoscaling());
    assertEquals(3, v.replicas(), "replicas are still read as written");
  }

  @Test
  void acceptsTheEdges() {
    assertEquals(
        new Autoscaling(4, 4, 600, 5), view("{\"minReplicas\":4,\"maxReplicas\":4}").autoscaling());
    assertEquals(
        new Autoscaling(0, NodeSetSpecValidator.MAX_NODES, 1, 0),
        view("{\"maxReplicas\":2000,\"idleTime\":\"1s\",\"scaleUpDelay\":\"0s\"}").autoscaling());
    // minReplicas written as null is absent: 0.
    assertEquals(
        new Autoscaling(0, 3, 600, 5),
        view("{\"minReplicas\":null,\"maxReplicas\":3}").autoscaling());
  }

  /** Each bad block: exactly its one problem, no autoscaling, and the workflow adds nothing. */
  @Test
  void eachViolationIsOneProblemNamingTheFieldAndTheFix() {
    String p = "spec.autoscaling";
    String tooMany =
        " is more than 2000, the most nodes one NodeSet may have; split the fleet into several"
            + " NodeSets";
    assertOnly(
        "{\"minReplicas\":5,\"maxReplicas\":2}",
        p + ": minReplicas 5 is more than maxReplicas 2; raise maxReplicas or lower minReplicas");
    assertOnly("{\"maxReplicas\":0}", p + ".maxReplicas: 0 is less than 1; use 1 or more");
    assertOnly(
        "{\"minReplicas\":-1,\"maxReplicas\":2}",
        p + ".minReplicas: -1 is negative; use 0 or more");
    assertOnly("{\"maxReplicas\":-3}", p + ".maxReplicas: -3 is negative; use 1 or more");
    assertOnly(
        "{\"maxReplicas\":\"8\"}",
        p
            + ".maxReplicas: \"8\" is text; write a whole number without quotes, e.g. maxReplicas: 8");
    assertOnly(
        "{\"minReplicas\":\"one\",\"maxReplicas\":8}",
        p
            + ".minReplicas: \"one\" is text; write a whole number without quotes, e.g."
            + " minReplicas: 0");
    assertOnly(
        "{\"maxReplicas\":2.5}", p + ".maxReplicas: 2.5 is not a whole number; use 1 or more");
    assertOnly(
        "{\"maxReplicas\":[8]}", p + ".maxReplicas: [8] is not a whole number; use 1 or more");
    assertOnly("{\"maxReplicas\":2001}", p + ".maxReplicas: 2001" + tooMany);
    assertOnly(
        "{\"maxReplicas\":99999999999999999999}",
        p + ".maxReplicas: 99999999999999999999" + tooMany);
    assertOnly(
        "{\"minReplicas\":-99999999999999999999,\"maxReplicas\":2}",
        p + ".minReplicas: -99999999999999999999 is negative; use 0 or more");
    assertOnly(
        "{}",
        p
            + ".maxReplicas: missing; set the most nodes the NodeSet may grow to, e.g. maxReplicas: 8");
    assertOnly(
        "{\"maxReplicas\":8,\"idleTime\":\"ten minutes\"}",
        p + ".idleTime: \"ten minutes\" is not a duration like 30s, 10m or 1h (units s, m, h, d)");
    assertOnly(
        "{\"maxReplicas\":8,\"idleTime\":600}",
        p + ".idleTime: 600 is not a duration like 30s, 10m or 1h (units s, m, h, d)");
    assertOnly(
        "{\"maxReplicas\":8,\"scaleUpDelay\":\"-5s\"}",
        p + ".scaleUpDelay: \"-5s\" is not a duration like 30s, 10m or 1h (units s, m, h, d)");
    assertOnly(
        "{\"maxReplicas\":8,\"idleTime\":\"0m\"}",
        p
            + ".idleTime: \"0m\" is zero; use at least 1s, or leave it unset for the default 10m"
            + " (to keep every node however long it idles, set minReplicas to maxReplicas)");
    assertOnly(
        "{\"maxReplicas\":8,\"maxReplica\":9}",
        p
            + ".maxReplica: unknown field; remove it (known fields: idleTime, maxReplicas,"
            + " minReplicas, scaleUpDelay)");
    assertOnly("8", p + ": 8 is not an object; write e.g. {minReplicas: 0, maxReplicas: 8}");
    assertOnly(
        "\"auto\"", p + ": \"auto\" is not an object; write e.g. {minReplicas: 0, maxReplicas: 8}");
  }

  /** Several mistakes at once: each said, in the order of the fields. */
  @Test
  void everyViolationIsSaid() {
    NodeSetSpecView v =
        view(
            "{\"minReplicas\":\"3\",\"maxReplicas\":0,\"idleTime\":\"soon\","
                + "\"scaleUpDelay\":\"0s\",\"cooldown\":\"5m\"}");
    assertNull(v.autoscaling());
    assertEquals(
        List.of(
            "spec.autoscaling.cooldown: unknown field; remove it (known fields: idleTime,"
                + " maxReplicas, minReplicas, scaleUpDelay)",
            "spec.autoscaling.minReplicas: \"3\" is text; write a whole number without quotes,"
                + " e.g. minReplicas: 0",
            "spec.autoscaling.maxReplicas: 0 is less than 1; use 1 or more",
            "spec.autoscaling.idleTime: \"soon\" is not a duration like 30s, 10m or 1h (units s,"
                + " m, h, d)"),
        v.problems());
  }

  /** The rest of the spec is read as usual, so the workflow can say what else changed. */
  @Test
  void anInvalidBlockLeavesTheRestRead() {
    NodeSetSpecView v = view("{\"minReplicas\":5,\"maxReplicas\":2}");
    assertEquals(3, v.replicas());
    assertNotNull(v.template());
    assertEquals(1, v.problems().size(), v.problems().toString());
  }

  /**
   * One set of rules: for every combination of in- and out-of-bounds numbers, the converter and the
   * workflow's rules on the record with the same numbers say the same thing, word for word.
   */
  @Test
  void theConverterAndTheWorkflowAgree() {
    int checked = 0;
    for (long min : new long[] {-1, 0, 2, 3, 4, 2000, 2001}) {
      for (long max : new long[] {-2, 0, 1, 3, 2000, 2001}) {
        for (long idle : new long[] {0, 1, 600}) {
          for (long delay : new long[] {0, 5}) {
            String block =
                String.format(
                    "{\"minReplicas\":%d,\"maxReplicas\":%d,\"idleTime\":\"%ds\","
                        + "\"scaleUpDelay\":\"%ds\"}",
                    min, max, idle, delay);
            NodeSetSpecView v = view(block);
            List<String> rules =
                AutoscalingRules.problems(new Autoscaling((int) min, (int) max, idle, delay));
            assertEquals(rules, v.problems(), block);
            if (rules.isEmpty()) {
              assertEquals(new Autoscaling((int) min, (int) max, idle, delay), v.autoscaling());
            } else {
              assertNull(v.autoscaling(), block);
            }
            checked++;
          }
        }
      }
    }
    assertEquals(7 * 6 * 3 * 2, checked);
  }

  /** "Never throws", as for the rest of the spec: every member of a full block, junk in turn. */
  @Test
  void neverThrowsWhateverAFieldHolds() {
    List<JsonNode> junk =
        List.of(
            json("null"),
            json("-7"),
            json("1e400"),
            json("\"x y\""),
            json("[]"),
            json("{}"),
            json("true"));
    List<String> fields = List.of("minReplicas", "maxReplicas", "idleTime", "scaleUpDelay");
    int converted = 0;
    for (String f : fields) {
      for (JsonNode j : junk) {
        ObjectNode block =
            (ObjectNode)
                json(
                    "{\"minReplicas\":1,\"maxReplicas\":4,\"idleTime\":\"2m\","
                        + "\"scaleUpDelay\":\"5s\"}");
        block.set(f, j);
        NodeSetSpecView v = view(block);
        assertTrue(
            v.problems().stream().noneMatch(x -> x.startsWith("internal error")),
            f + "=" + j + ": " + v.problems());
        assertTrue(
            v.autoscaling() == null || v.problems().isEmpty(),
            "an autoscaling block with problems is never passed on: " + v);
        converted++;
      }
    }
    assertEquals(fields.size() * junk.size(), converted);
  }

  /**
   * Exactly these problems, no autoscaling passed on, and the workflow's validator reports them as
   * they are (the converter's null block gives it nothing to add).
   */
  private static void assertOnly(String block, String expected) {
    NodeSetSpecView v = view(block);
    assertEquals(List.of(expected), v.problems(), block);
    assertNull(v.autoscaling(), block);
    assertEquals(v.problems(), NodeSetSpecValidator.validate(v), block);
  }
}
