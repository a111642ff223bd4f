package dev.tandem.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopologyRendererTest {
  static final String SPINE = "topology.tandem.dev/spine";
  static final String LEAF = "topology.tandem.dev/leaf";
  static final TopologySpec TREE = TopologySpec.parse("tree:" + SPINE + "," + LEAF);
  static final String HEADER =
      "# Rendered by Tandem from Kubernetes node labels (tree:"
          + SPINE
          + ","
          + LEAF
          + "); do not edit: see Tandem's docs/topology.md.\n";

  static Map<String, String> at(String spine, String leaf) {
    Map<String, String> m = new HashMap<>();
    if (spine != null) {
      m.put(SPINE, spine);
    }
    if (leaf != null) {
      m.put(LEAF, leaf);
    }
    m.put("kubernetes.io/hostname", "whatever");
    return m;
  }

  @Test
  void twoLeavesUnderOneSpine() {
    Map<String, Map<String, String>> in = new LinkedHashMap<>();
    in.put("gpu-a-10", at("s1", "l2"));
    in.put("gpu-a-2", at("s1", "l1"));
    in.put("gpu-a-1", at("s1", "l1"));
    in.put("gpu-a-3", at("s1", "l2"));
    Topology t = TopologyRenderer.render(TREE, in);
    assertEquals(
        HEADER
            + "SwitchName=l1 Nodes=gpu-a-1,gpu-a-2\n"
            + "SwitchName=l2 Nodes=gpu-a-3,gpu-a-10\n"
            + "SwitchName=s1 Switches=l1,l2\n",
        t.conf());
    assertEquals(
        HEADER
            + "- topology: tandem\n"
            + "  cluster_default: true\n"
            + "  tree:\n"
            + "    switches:\n"
            + "      - switch: l1\n"
            + "        nodes: gpu-a-1,gpu-a-2\n"
            + "      - switch: l2\n"
            + "        nodes: gpu-a-3,gpu-a-10\n"
            + "      - switch: s1\n"
            + "        children: l1,l2\n",
        t.yaml());
  }

  @Test
  void theSameInputInAnyOrderGivesTheSameBytes() {
    Map<String, Map<String, String>> a = new LinkedHashMap<>();
    Map<String, Map<String, String>> b = new LinkedHashMap<>();
    List<String> names = List.of("n1", "n2", "n3", "n4", "n5", "n6");
    for (String n : names) {
      int leaf = n.hashCode() % 3;
      a.put(n, at("s" + leaf % 2, "l" + leaf));
    }
    List<String> reversed = new java.util.ArrayList<>(names);
    java.util.Collections.reverse(reversed);
    for (String n : reversed) {
      b.put(n, a.get(n));
    }
    assertEquals(TopologyRenderer.render(TREE, a), TopologyRenderer.render(TREE, b));
  }

  @Test
  void nodesMissingALabelOrANodeGoToTheCatchAll() {
    Map<String, Map<String, String>> in = new LinkedHashMap<>();
    in.put("a-0", at("s1", "l1"));
    in.put("a-1", at("s1", null)); // no leaf
    in.put("a-2", at(null, "l1")); // no spine
    in.put("a-3", at("s1", " ")); // blank
    in.put("a-4", null); // Kubernetes node unknown
    Topology t = TopologyRenderer.render(TREE, in);
    assertEquals(
        HEADER
            + "SwitchName=l1 Nodes=a-0\n"
            + "SwitchName=s1 Switches=l1\n"
            + "SwitchName=unlabeled Nodes=a-1,a-2,a-3,a-4\n",
        t.conf());
    assertTrue(t.yaml().endsWith("      - switch: unlabeled\n        nodes: a-1,a-2,a-3,a-4\n"));
  }

  @Test
  void twoSpinesThreeLevels() {
    TopologySpec three = TopologySpec.parse("tree:core,spine,leaf");
    Map<String, Map<String, String>> in = new LinkedHashMap<>();
    in.put("n1", Map.of("core", "c", "spine", "s1", "leaf", "l1"));
    in.put("n2", Map.of("core", "c", "spine", "s2", "leaf", "l2"));
    in.put("n3", Map.of("core", "c", "spine", "s2", "leaf", "l3"));
    assertEquals(
        "# Rendered by Tandem from Kubernetes node labels (tree:core,spine,leaf); do not edit:"
            + " see Tandem's docs/topology.md.\n"
            + "SwitchName=l1 Nodes=n1\n"
            + "SwitchName=l2 Nodes=n2\n"
            + "SwitchName=l3 Nodes=n3\n"
            + "SwitchName=s1 Switches=l1\n"
            + "SwitchName=s2 Switches=l2,l3\n"
            + "SwitchName=c Switches=s1,s2\n",
        TopologyRenderer.render(three, in).conf());
  }

  @Test
  void blocks() {
    TopologySpec block = TopologySpec.parse("block:topology.tandem.dev/block");
    Map<String, Map<String, String>> in = new LinkedHashMap<>();
    in.put("n2", Map.of("topology.tandem.dev/block", "b1"));
    in.put("n1", Map.of("topology.tandem.dev/block", "b1"));
    in.put("n3", Map.of("topology.tandem.dev/block", "b2"));
    in.put("n4", Map.of());
    Topology t = TopologyRenderer.render(block, in);
    String header =
        "# Rendered by Tandem from Kubernetes node labels (block:topology.tandem.dev/block); do"
            + " not edit: see Tandem's docs/topology.md.\n";
    assertEquals(
        header
            + "BlockName=b1 Nodes=n1,n2\n"
            + "BlockName=b2 Nodes=n3\n"
            + "BlockName=unlabeled Nodes=n4\n",
        t.conf());
    assertEquals(
        header
            + "- topology: tandem\n"
            + "  cluster_default: true\n"
            + "  block:\n"
            + "    blocks:\n"
            + "      - block: b1\n"
            + "        nodes: n1,n2\n"
            + "      - block: b2\n"
            + "        nodes: n3\n"
            + "      - block: unlabeled\n"
            + "        nodes: n4\n",
        t.yaml());
  }

  @Test
  void noNodesIsAFlatYamlAndAnEmptyConf() {
    Topology t = TopologyRenderer.render(TREE, Map.of());
    assertEquals(HEADER, t.conf());
    assertEquals(HEADER + "- topology: tandem\n  cluster_default: true\n  flat: true\n", t.yaml());
  }

  @Test
  void aLeafUnderTwoSpinesIsAContradiction() {
    Map<String, Map<String, String>> in = new LinkedHashMap<>();
    in.put("n1", at("s1", "l1"));
    in.put("n2", at("s2", "l1"));
    TopologyException e =
        assertThrows(TopologyException.class, () -> TopologyRenderer.render(TREE, in));
    assertEquals("switch \"l1\" has two parents: \"s1\" and \"s2\"", e.getMessage());
  }

  @Test
  void aNameAtTwoLevelsIsAContradiction() {
    Map<String, Map<String, String>> in = new LinkedHashMap<>();
    in.put("n1", at("x", "l1"));
    in.put("n2", at("s2", "x"));
    TopologyException e =
        assertThrows(TopologyException.class, () -> TopologyRenderer.render(TREE, in));
    assertTrue(e.getMessage().contains("\"x\" is a switch at two levels"), e.getMessage());
  }

  @Test
  void aLabelValueNamedLikeTheCatchAllIsAContradictionOnlyWithUnlabelledNodes() {
    Map<String, Map<String, String>> in = new LinkedHashMap<>();
    in.put("n1", at("s1", "unlabeled"));
    TopologyRenderer.render(TREE, in); // fine alone
    in.put("n2", null);
    assertThrows(TopologyException.class, () -> TopologyRenderer.render(TREE, in));
  }

  @Test
  void naturalOrder() {
    List<String> sorted =
        new java.util.ArrayList<>(List.of("n10", "n2", "n1", "m", "n02x", "n2a", "n"));
    sorted.sort(TopologyRenderer.NATURAL);
    assertEquals(List.of("m", "n", "n1", "n2", "n2a", "n02x", "n10"), sorted);
  }
}
