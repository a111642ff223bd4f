package dev.tandem.topology;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which Kubernetes node labels describe the fabric ({@code TANDEM_TOPOLOGY}, docs/topology.md).
 * Slurm's controller has one topology, so this is configuration of the cluster, not of a NodeSet.
 *
 * <ul>
 *   <li>{@code tree:<top>,...,<leaf>}: one switch level per label, the top level first (e.g. a
 *       spine label, then a leaf label); Slurm's topology/tree.
 *   <li>{@code block:<label>}: one block per value of the label; Slurm's topology/block.
 *   <li>empty or {@code off}: no topology (the default).
 * </ul>
 *
 * @param mode which topology
 * @param labels the labels, top switch level first (one for {@code block}, none for {@code off})
 */
public record TopologySpec(Mode mode, List<String> labels) {
  /** The kinds of topology Tandem renders. */
  public enum Mode {
    OFF,
    TREE,
    BLOCK
  }

  /** A label key: an optional DNS-subdomain prefix and a name, as Kubernetes allows them. */
  private static final Pattern LABEL_KEY =
      Pattern.compile(
          "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
              + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$");

  public static final TopologySpec OFF = new TopologySpec(Mode.OFF, List.of());

  public TopologySpec {
    labels = List.copyOf(labels);
  }

  public boolean enabled() {
    return mode != Mode.OFF;
  }

  /**
   * Parses {@code TANDEM_TOPOLOGY}'s value.
   *
   * @throws IllegalArgumentException with a message that says what is wrong and what is expected
   */
  public static TopologySpec parse(String value) {
    String v = value == null ? "" : value.trim();
    if (v.isEmpty() || v.equalsIgnoreCase("off")) {
      return OFF;
    }
    int colon = v.indexOf(':');
    String kind = colon < 0 ? v : v.substring(0, colon).trim().toLowerCase(Locale.ROOT);
    Mode mode =
        switch (kind) {
          case "tree" -> Mode.TREE;
          case "block" -> Mode.BLOCK;
          default -> throw bad(v, "it must start with tree: or block: (or be off)");
        };
    if (colon < 0) {
      throw bad(v, "no labels after " + kind + ":");
    }
    List<String> labels = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (String part : v.substring(colon + 1).split(",", -1)) {
      String label = part.trim();
      if (label.isEmpty()) {
        throw bad(v, "an empty label in the list");
      }
      if (!LABEL_KEY.matcher(label).matches() || label.length() > 317) {
        throw bad(v, "\"" + label + "\" is not a Kubernetes label key");
      }
      if (!seen.add(label)) {
        throw bad(v, "\"" + label + "\" is named twice");
      }
      labels.add(label);
    }
    if (mode == Mode.BLOCK && labels.size() != 1) {
      throw bad(v, "block takes exactly one label");
    }
    return new TopologySpec(mode, labels);
  }

  private static IllegalArgumentException bad(String v, String why) {
    return new IllegalArgumentException(
        "TANDEM_TOPOLOGY=\""
            + v
            + "\": "
            + why
            + "; expected tree:<top-label>,...,<leaf-label>, block:<label> or off");
  }

  /** The configuration form, e.g. {@code tree:spine,leaf}. */
  @Override
  public String toString() {
    return mode == Mode.OFF
        ? "off"
        : mode.name().toLowerCase(Locale.ROOT) + ":" + String.join(",", labels);
  }
}
