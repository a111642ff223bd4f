package dev.tandem.topology;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Renders Slurm's topology from the labels of the Kubernetes nodes Tandem's Slurm nodes run on.
 * Pure code: the same input gives the same bytes, so a publisher can compare renderings.
 *
 * <ol>
 *   <li>Each Slurm node takes the values of the configured labels from its Kubernetes node (the
 *       slurmd pod's {@code spec.nodeName}). A Slurm node whose Kubernetes node is unknown, or
 *       lacks any of the labels (or has an empty value), goes into the catch-all switch or block
 *       {@value #UNLABELED}: Slurm refuses to run jobs on a node no switch reaches, so leaving it
 *       out would take it out of service; being alone in the catch-all only keeps jobs from
 *       spanning it and labelled nodes.
 *   <li>tree: the leaf label's value names the switch a node hangs from; each higher label's value
 *       names the switch above. A switch's name is the label value itself (Kubernetes label values
 *       are already valid Slurm names). A name used at two levels, or a switch with two parents
 *       (e.g. leaf {@code l1} under spines {@code s1} and {@code s2}), is a contradiction in the
 *       labels: rendering fails with {@link TopologyException} rather than guess.
 *   <li>block: one block per value of the label.
 *   <li>Order: switches leaf level first, then upwards, each level by name; nodes in natural order
 *       ({@code n2} before {@code n10}); the catch-all last.
 * </ol>
 */
public final class TopologyRenderer {
  /** The switch or block of Slurm nodes whose position in the fabric is not known. */
  public static final String UNLABELED = "unlabeled";

  /** Natural order: digit runs compare as numbers, so {@code gpu-2} comes before {@code gpu-10}. */
  public static final Comparator<String> NATURAL = TopologyRenderer::compareNatural;

  private TopologyRenderer() {}

  /**
   * @param spec what to render (not off)
   * @param nodeLabels Slurm node name to its Kubernetes node's labels (null: node unknown)
   * @throws TopologyException when the labels contradict each other
   */
  public static Topology render(TopologySpec spec, Map<String, Map<String, String>> nodeLabels) {
    if (!spec.enabled()) {
      throw new IllegalArgumentException("topology is off");
    }
    int levels = spec.labels().size();
    // Per level (0 = leaf), switch name -> children (node names at level 0, switch names above).
    List<SortedMap<String, SortedSet<String>>> byLevel = new ArrayList<>();
    for (int i = 0; i < levels; i++) {
      byLevel.add(new TreeMap<>(NATURAL));
    }
    Map<String, String> parentOf = new HashMap<>();
    Map<String, Integer> levelOf = new HashMap<>();
    SortedSet<String> unlabeled = new TreeSet<>(NATURAL);
    for (Map.Entry<String, Map<String, String>> e : nodeLabels.entrySet()) {
      List<String> path = path(spec, e.getValue());
      if (path == null) {
        unlabeled.add(e.getKey());
        continue;
      }
      // path.get(0) is the top, path.get(levels - 1) the leaf.
      String child = e.getKey();
      for (int level = 0; level < levels; level++) {
        String sw = path.get(levels - 1 - level);
        Integer seenAt = levelOf.putIfAbsent(sw, level);
        if (seenAt != null && seenAt != level) {
          throw new TopologyException(
              "the name \""
                  + sw
                  + "\" is a switch at two levels (labels "
                  + spec.labels().get(levels - 1 - seenAt)
                  + " and "
                  + spec.labels().get(levels - 1 - level)
                  + ")");
        }
        byLevel.get(level).computeIfAbsent(sw, k -> new TreeSet<>(NATURAL)).add(child);
        if (level > 0) {
          String before = parentOf.putIfAbsent(child, sw);
          if (before != null && !before.equals(sw)) {
            throw new TopologyException(
                "switch \"" + child + "\" has two parents: \"" + before + "\" and \"" + sw + "\"");
          }
        }
        child = sw;
      }
    }
    if (!unlabeled.isEmpty() && levelOf.containsKey(UNLABELED)) {
      throw new TopologyException(
          "a label value is \"" + UNLABELED + "\", the name of the catch-all for unlabelled nodes");
    }
    return new Topology(spec, conf(spec, byLevel, unlabeled), yaml(spec, byLevel, unlabeled));
  }

  /** The label values, top first; null when any is missing. */
  private static List<String> path(TopologySpec spec, Map<String, String> labels) {
    if (labels == null) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (String key : spec.labels()) {
      String v = labels.get(key);
      if (v == null || v.isBlank()) {
        return null;
      }
      out.add(v.trim());
    }
    return out;
  }

  private static String header(TopologySpec spec) {
    return "# Rendered by Tandem from Kubernetes node labels ("
        + spec
        + "); do not edit: see Tandem's docs/topology.md.\n";
  }

  private static String conf(
      TopologySpec spec,
      List<SortedMap<String, SortedSet<String>>> byLevel,
      SortedSet<String> unlabeled) {
    StringBuilder out = new StringBuilder(header(spec));
    String kind = spec.mode() == TopologySpec.Mode.BLOCK ? "BlockName" : "SwitchName";
    for (int level = 0; level < byLevel.size(); level++) {
      for (Map.Entry<String, SortedSet<String>> sw : byLevel.get(level).entrySet()) {
        out.append(kind)
            .append('=')
            .append(sw.getKey())
            .append(level == 0 ? " Nodes=" : " Switches=")
            .append(String.join(",", sw.getValue()))
            .append('\n');
      }
    }
    if (!unlabeled.isEmpty()) {
      out.append(kind)
          .append('=')
          .append(UNLABELED)
          .append(" Nodes=")
          .append(String.join(",", unlabeled))
          .append('\n');
    }
    return out.toString();
  }

  private static String yaml(
      TopologySpec spec,
      List<SortedMap<String, SortedSet<String>>> byLevel,
      SortedSet<String> unlabeled) {
    StringBuilder out = new StringBuilder(header(spec));
    out.append("- topology: tandem\n  cluster_default: true\n");
    boolean empty = byLevel.get(0).isEmpty() && unlabeled.isEmpty();
    if (empty) {
      // No node to place: a tree or block without members is not valid, flat is.
      return out.append("  flat: true\n").toString();
    }
    boolean block = spec.mode() == TopologySpec.Mode.BLOCK;
    out.append(block ? "  block:\n    blocks:\n" : "  tree:\n    switches:\n");
    String item = block ? "block" : "switch";
    for (int level = 0; level < byLevel.size(); level++) {
      for (Map.Entry<String, SortedSet<String>> sw : byLevel.get(level).entrySet()) {
        out.append("      - ")
            .append(item)
            .append(": ")
            .append(sw.getKey())
            .append(level == 0 ? "\n        nodes: " : "\n        children: ")
            .append(String.join(",", sw.getValue()))
            .append('\n');
      }
    }
    if (!unlabeled.isEmpty()) {
      out.append("      - ")
          .append(item)
          .append(": ")
          .append(UNLABELED)
          .append("\n        nodes: ")
          .append(String.join(",", unlabeled))
          .append('\n');
    }
    return out.toString();
  }

  static int compareNatural(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      char ca = a.charAt(i);
      char cb = b.charAt(j);
      if (Character.isDigit(ca) && Character.isDigit(cb)) {
        int si = i;
        int sj = j;
        while (i < a.length() && Character.isDigit(a.charAt(i))) {
          i++;
        }
        while (j < b.length() && Character.isDigit(b.charAt(j))) {
          j++;
        }
        String na = a.substring(si, i).replaceFirst("^0+(?=.)", "");
        String nb = b.substring(sj, j).replaceFirst("^0+(?=.)", "");
        int c =
            na.length() != nb.length()
                ? Integer.compare(na.length(), nb.length())
                : na.compareTo(nb);
        if (c != 0) {
          return c;
        }
      } else {
        if (ca != cb) {
          return Character.compare(ca, cb);
        }
        i++;
        j++;
      }
    }
    int c = Integer.compare(a.length() - i, b.length() - j);
    return c != 0 ? c : a.compareTo(b);
  }
}
