package dev.tandem.workflows.model;

import java.util.Optional;

/**
 * Why Tandem drains a Slurm node. The order is the precedence used when several causes hold a node
 * at once: the first one's reason is what Slurm shows.
 */
public enum DrainCause {
  REMEDIATION("remediation"),
  K8S_UNHEALTHY("k8s-unhealthy"),
  K8S_CORDON("k8s-cordon"),
  MANUAL("manual"),
  POD_DELETED("pod-deleted"),
  UPDATE("update"),
  SCALE_DOWN("scale-down");

  private final String label;

  DrainCause(String label) {
    this.label = label;
  }

  /** The cause as it appears in reasons and signal owners, e.g. {@code k8s-cordon}. */
  public String label() {
    return label;
  }

  public static Optional<DrainCause> fromLabel(String s) {
    if (s == null) {
      return Optional.empty();
    }
    for (DrainCause c : values()) {
      if (c.label.equalsIgnoreCase(s.trim())) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }
}
