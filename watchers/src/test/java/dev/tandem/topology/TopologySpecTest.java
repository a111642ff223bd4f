package dev.tandem.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TopologySpecTest {
  @Test
  void treeTopFirst() {
    TopologySpec s =
        TopologySpec.parse(" tree: topology.tandem.dev/spine , topology.tandem.dev/leaf ");
    assertEquals(TopologySpec.Mode.TREE, s.mode());
    assertEquals(List.of("topology.tandem.dev/spine", "topology.tandem.dev/leaf"), s.labels());
    assertEquals("tree:topology.tandem.dev/spine,topology.tandem.dev/leaf", s.toString());
    assertTrue(s.enabled());
  }

  @Test
  void block() {
    TopologySpec s = TopologySpec.parse("block:nvidia.com/gpu.clique");
    assertEquals(TopologySpec.Mode.BLOCK, s.mode());
    assertEquals(List.of("nvidia.com/gpu.clique"), s.labels());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "  ", "off", "OFF"})
  void off(String v) {
    assertFalse(TopologySpec.parse(v).enabled());
  }

  @Test
  void nullIsOff() {
    assertEquals(TopologySpec.OFF, TopologySpec.parse(null));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "mesh:a|it must start with tree: or block:",
        "tree|no labels after tree:",
        "tree:a,,b|an empty label in the list",
        "tree:a,b,a|\"a\" is named twice",
        "tree:Bad_Prefix/x|is not a Kubernetes label key",
        "tree:a b|is not a Kubernetes label key",
        "block:a,b|block takes exactly one label",
      })
  void badValuesSayWhatIsWrong(String v, String why) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> TopologySpec.parse(v));
    assertTrue(e.getMessage().startsWith("TANDEM_TOPOLOGY=\""), e.getMessage());
    assertTrue(e.getMessage().contains(why), e.getMessage());
    assertTrue(e.getMessage().contains("expected tree:"), e.getMessage());
  }
}
