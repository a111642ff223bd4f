package dev.tandem.workflows.nodeset;

import static dev.tandem.workflows.nodeset.NodeSetSpecValidator.MAX_NODES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.Autoscaling;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.model.UpdateStrategy;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeSetSpecValidatorTest {
  private static NodeSetSpecView spec(Integer replicas, String type, String maxUnavailable) {
    return new NodeSetSpecView(
        1,
        "u",
        replicas,
        new PodTemplate("r1", "{}", null),
        new UpdateStrategy(type, maxUnavailable),
        null,
        null,
        List.of());
  }

  @Test
  void acceptsValidSpecs() {
    assertEquals(List.of(), NodeSetSpecValidator.validate(spec(0, "RollingUpdate", null)));
    assertEquals(List.of(), NodeSetSpecValidator.validate(spec(3, "RollingUpdate", "25%")));
    assertEquals(List.of(), NodeSetSpecValidator.validate(spec(3, "OnDelete", "bogus-ignored")));
  }

  @Test
  void namesTheFieldAndTheFix() {
    assertEquals(
        List.of("spec.replicas is required (a number >= 0)"),
        NodeSetSpecValidator.validate(spec(null, "RollingUpdate", "1")));
    assertTrue(
        NodeSetSpecValidator.validate(spec(3, "Recreate", "1"))
            .get(0)
            .contains("must be RollingUpdate or OnDelete"));
    assertTrue(
        NodeSetSpecValidator.validate(spec(3, "RollingUpdate", "0")).get(0).contains("at least 1"));
    assertTrue(
        NodeSetSpecValidator.validate(spec(3, "RollingUpdate", "150%"))
            .get(0)
            .contains("between 1% and 100%"));
    NodeSetSpecView noTemplate =
        new NodeSetSpecView(1, "u", 1, null, null, null, null, List.of("spec.drain.timeout: bad"));
    assertEquals(
        List.of(
            "spec.drain.timeout: bad",
            "spec.template is required (a pod template with the slurmd container)"),
        NodeSetSpecValidator.validate(noTemplate));
  }

  private static NodeSetSpecView topology(String type, String key, String order) {
    return new NodeSetSpecView(
        1,
        "u",
        3,
        new PodTemplate("r1", "{}", null),
        new UpdateStrategy(type, "1", key, order),
        null,
        null,
        List.of());
  }

  @Test
  void checksTheTopologyKeyAndDomainOrder() {
    for (String key : List.of("topology.tandem.dev/block", "rack", "example.com/leaf_1")) {
      assertEquals(
          List.of(), NodeSetSpecValidator.validate(topology("RollingUpdate", key, null)), key);
    }
    assertEquals(
        List.of(),
        NodeSetSpecValidator.validate(topology("RollingUpdate", "rack", UpdateStrategy.BY_NAME)));
    for (String key : List.of("a b", "Example.com/rack", "/rack", "rack/", "-rack", "")) {
      List<String> p = NodeSetSpecValidator.validate(topology("RollingUpdate", key, null));
      assertEquals(1, p.size(), key);
      assertTrue(
          p.get(0).startsWith("spec.updateStrategy.rollingUpdate.topologyKey: \"" + key + "\""),
          p.get(0));
    }
    assertEquals(
        List.of(
            "spec.updateStrategy.rollingUpdate.domainOrder must be idleFirst or name, got \"x\""),
        NodeSetSpecValidator.validate(topology("RollingUpdate", "rack", "x")));
    assertEquals(
        List.of(
            "spec.updateStrategy.rollingUpdate.domainOrder needs topologyKey, the node label"
                + " naming the domain"),
        NodeSetSpecValidator.validate(topology("RollingUpdate", null, "name")));
    assertEquals(
        List.of("spec.updateStrategy.rollingUpdate is only allowed with type RollingUpdate"),
        NodeSetSpecValidator.validate(topology("OnDelete", "rack", null)));
  }

  /** A valid spec but for {@code autoscaling}, as a {@code specChanged} signal may carry it. */
  private static NodeSetSpecView autoscaled(Autoscaling a) {
    return new NodeSetSpecView(
        1, "u", 3, new PodTemplate("r1", "{}", null), null, null, null, List.of(), null, null, a);
  }

  private static List<String> autoscaling(int min, int max, long idle, long delay) {
    return NodeSetSpecValidator.validate(autoscaled(new Autoscaling(min, max, idle, delay)));
  }

  @Test
  void acceptsAutoscalingWithinItsBounds() {
    assertEquals(List.of(), NodeSetSpecValidator.validate(autoscaled(null)));
    assertEquals(List.of(), autoscaling(0, 8, 600, 5));
    assertEquals(List.of(), autoscaling(4, 4, 1, 0), "min = max, the shortest idle, no delay");
    assertEquals(
        List.of(),
        autoscaling(
            MAX_NODES,
            MAX_NODES,
            AutoscalingRules.MAX_DURATION_SECONDS,
            AutoscalingRules.MAX_DURATION_SECONDS));
  }

  /** The converter's rules and messages, for a spec that never passed the converter. */
  @Test
  void refusesAutoscalingOutsideItsBounds() {
    String f = "spec.autoscaling";
    String tooMany =
        " is more than 2000, the most nodes one NodeSet may have; split the fleet into several"
            + " NodeSets";
    assertEquals(
        List.of(
            f
                + ": minReplicas 5 is more than maxReplicas 2; raise maxReplicas or lower minReplicas"),
        autoscaling(5, 2, 600, 5));
    assertEquals(
        List.of(
            f
                + ": minReplicas 3 is more than maxReplicas 2; raise maxReplicas or lower minReplicas"),
        autoscaling(3, 2, 600, 5));
    assertEquals(
        List.of(f + ".minReplicas: -1 is negative; use 0 or more"), autoscaling(-1, 2, 600, 5));
    assertEquals(
        List.of(f + ".maxReplicas: 0 is less than 1; use 1 or more"), autoscaling(0, 0, 600, 5));
    assertEquals(
        List.of(f + ".maxReplicas: -4 is negative; use 1 or more"), autoscaling(0, -4, 600, 5));
    assertEquals(List.of(f + ".maxReplicas: 2001" + tooMany), autoscaling(0, 2001, 600, 5));
    // Out of bounds and above maxReplicas: the bound is said, not the comparison as well.
    assertEquals(List.of(f + ".minReplicas: 2001" + tooMany), autoscaling(2001, 8, 600, 5));
    assertEquals(
        List.of(
            f
                + ".idleTime: \"0s\" is zero; use at least 1s, or leave it unset for the default"
                + " 10m (to keep every node however long it idles, set minReplicas to"
                + " maxReplicas)"),
        autoscaling(0, 8, 0, 5));
    assertEquals(
        List.of(f + ".idleTime: \"-60s\" is negative; use at least 1s"), autoscaling(0, 8, -60, 5));
    assertEquals(
        List.of(f + ".scaleUpDelay: \"-1s\" is negative; use 0s or more"),
        autoscaling(0, 8, 600, -1));
    // Beyond what a NodeSet can spell: also what keeps seconds * 1000 from overflowing.
    long tooLong = AutoscalingRules.MAX_DURATION_SECONDS + 1;
    String longer = "\" is longer than a duration can be written (at most 4 parts of 999999999d)";
    assertEquals(
        List.of(f + ".idleTime: \"" + tooLong + "s" + longer), autoscaling(0, 8, tooLong, 5));
    assertEquals(
        List.of(f + ".scaleUpDelay: \"" + Long.MAX_VALUE + "s" + longer),
        autoscaling(0, 8, 600, Long.MAX_VALUE));
  }

  @Test
  void saysEveryAutoscalingProblemAfterTheOthers() {
    NodeSetSpecView v =
        new NodeSetSpecView(
            1,
            "u",
            -1,
            new PodTemplate("r1", "{}", null),
            null,
            null,
            null,
            List.of(),
            null,
            null,
            new Autoscaling(-1, 0, 0, -5));
    assertEquals(
        List.of(
            "spec.replicas must be between 0 and 10000, got -1",
            "spec.autoscaling.minReplicas: -1 is negative; use 0 or more",
            "spec.autoscaling.maxReplicas: 0 is less than 1; use 1 or more",
            "spec.autoscaling.idleTime: \"0s\" is zero; use at least 1s, or leave it unset for the"
                + " default 10m (to keep every node however long it idles, set minReplicas to"
                + " maxReplicas)",
            "spec.autoscaling.scaleUpDelay: \"-5s\" is negative; use 0s or more"),
        NodeSetSpecValidator.validate(v));
  }

  @Test
  void resolvesMaxUnavailable() {
    assertEquals(1, NodeSetSpecValidator.resolveMaxUnavailable(null, 10));
    assertEquals(2, NodeSetSpecValidator.resolveMaxUnavailable("25%", 10));
    assertEquals(1, NodeSetSpecValidator.resolveMaxUnavailable("10%", 4));
    assertEquals(3, NodeSetSpecValidator.resolveMaxUnavailable("3", 10));
  }
}
