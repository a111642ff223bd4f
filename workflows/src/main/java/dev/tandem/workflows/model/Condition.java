package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Instant;

/** A Kubernetes-style status condition. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Condition(
    String type, String status, String reason, String message, Instant lastTransitionTime) {
  public static final String READY = "Ready";
  public static final String PROGRESSING = "Progressing";
  public static final String DEGRADED = "Degraded";
  public static final String INVALID_SPEC = "InvalidSpec";
  public static final String SLURM_REACHABLE = "SlurmReachable";
  public static final String KUBERNETES_REACHABLE = "KubernetesReachable";
  public static final String AUTOMATIC_DRAINS_HELD = "AutomaticDrainsHeld";
  public static final String AUTOSCALED = "Autoscaled";

  public static final String TRUE = "True";
  public static final String FALSE = "False";
  public static final String UNKNOWN = "Unknown";

  public boolean statusTrue() {
    return TRUE.equals(status);
  }

  /**
   * Whether this condition says something is wrong: Ready or a *Reachable condition that is not
   * True (False or Unknown), Degraded, InvalidSpec or AutomaticDrainsHeld that is True. Progressing
   * is news, not trouble. A type this code does not know needs attention when it is not True.
   */
  public boolean needsAttention() {
    return switch (type) {
      case PROGRESSING -> false;
      case DEGRADED, INVALID_SPEC, AUTOMATIC_DRAINS_HELD -> statusTrue();
      default -> !statusTrue();
    };
  }

  /** Same type, status, reason and message (transition time aside). */
  public boolean sameAs(Condition o) {
    return o != null
        && type.equals(o.type)
        && status.equals(o.status)
        && java.util.Objects.equals(reason, o.reason)
        && java.util.Objects.equals(message, o.message);
  }
}
