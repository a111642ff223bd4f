package dev.tandem.workflows.nodeset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

  @Test
  void resolvesMaxUnavailable() {
    assertEquals(1, NodeSetSpecValidator.resolveMaxUnavailable(null, 10));
    assertEquals(2, NodeSetSpecValidator.resolveMaxUnavailable("25%", 10));
    assertEquals(1, NodeSetSpecValidator.resolveMaxUnavailable("10%", 4));
    assertEquals(3, NodeSetSpecValidator.resolveMaxUnavailable("3", 10));
  }
}
