package dev.tandem.slurm;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/** Checks shared by the adapters' reservation calls (before anything is sent). */
public final class Reservations {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
  private static final Pattern NODE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  /** The flags Tandem's reservations carry: maintenance, and nodes taken even with jobs. */
  public static final List<String> FLAGS = List.of("MAINT", "IGNORE_JOBS");

  private Reservations() {}

  /** {@code name} if it is a plain reservation name; {@link IllegalArgumentException} otherwise. */
  public static String checkName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "not a reservation name (letters, digits, '.', '_', '-'): " + name);
    }
    return name;
  }

  /** Single node names (no hostlist), at least one. */
  public static List<String> checkNodes(List<String> nodes) {
    if (nodes == null || nodes.isEmpty()) {
      throw new IllegalArgumentException("a reservation needs at least one node");
    }
    for (String n : nodes) {
      if (n == null || !NODE.matcher(n).matches()) {
        throw new IllegalArgumentException("not a single Slurm node name: " + n);
      }
    }
    return List.copyOf(nodes);
  }

  /** Whole minutes, rounded up, at least one. */
  public static long minutes(Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("a reservation needs a positive duration: " + d);
    }
    return Math.max(1, (d.getSeconds() + 59) / 60);
  }
}
