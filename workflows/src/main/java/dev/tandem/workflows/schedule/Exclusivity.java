package dev.tandem.workflows.schedule;

import java.util.Locale;

/**
 * How the placeholder job shares its Slurm nodes (annotation {@code tandem.dev/exclusive}). The
 * default is {@link #NONE}: the job takes only what the pod requests and other jobs share the node,
 * unlike slurm-bridge, which takes whole nodes by default.
 */
public enum Exclusivity {
  /** Shared: other jobs may run on the same node (Slurm's default for non-exclusive jobs). */
  NONE,
  /** Only jobs of the same user may share the node ({@code --exclusive=user}). */
  USER,
  /** The whole node ({@code --exclusive}). */
  EXCLUSIVE;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The value for {@code label} ({@code none}, {@code user}, {@code exclusive}), or null. */
  public static Exclusivity parse(String label) {
    for (Exclusivity e : values()) {
      if (e.label().equals(label)) {
        return e;
      }
    }
    return null;
  }
}
