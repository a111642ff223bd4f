package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** {@code spec.remediation.replace}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RemediationReplaceSpec {

  /** Spelled as in the resource. */
  public enum Mode {
    @JsonProperty("Mark")
    Mark,
    @JsonProperty("Delete")
    Delete
  }

  @JsonPropertyDescription(
      "Mark (default): cordon and annotate tandem.dev/replace-requested for the provider's"
          + " automation or a human. Delete: cordon and delete the Node object"
          + " (cluster-autoscaler / Karpenter style).")
  private Mode mode;

  public Mode getMode() {
    return mode;
  }

  public void setMode(Mode mode) {
    this.mode = mode;
  }
}
