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

  public boolean statusTrue() {
    return "True".equals(status);
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
