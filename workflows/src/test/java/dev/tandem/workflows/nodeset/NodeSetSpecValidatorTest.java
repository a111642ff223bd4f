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

  @Test
  void resolvesMaxUnavailable() {
    assertEquals(1, NodeSetSpecValidator.resolveMaxUnavailable(null, 10));
    assertEquals(2, NodeSetSpecValidator.resolveMaxUnavailable("25%", 10));
    assertEquals(1, NodeSetSpecValidator.resolveMaxUnavailable("10%", 4));
    assertEquals(3, NodeSetSpecValidator.resolveMaxUnavailable("3", 10));
  }
}
