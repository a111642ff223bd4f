package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** One rung of {@code spec.remediation.steps}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RemediationStepSpec {

  /** The action, spelled as in the resource. */
  public enum Action {
    @JsonProperty("RestartSlurmd")
    RestartSlurmd,
    @JsonProperty("Reboot")
    Reboot,
    @JsonProperty("Replace")
    Replace
  }

  @Required
  @JsonPropertyDescription(
      "RestartSlurmd: delete the node's slurmd pods (their NodeSet recreates them). Reboot: ask"
          + " for a reboot through the worker's reboot action. Replace: cordon, then mark the"
          + " Kubernetes node for the provider or delete it (see replace.mode).")
  private Action action;

  @Pattern(DrainSpec.DURATION_PATTERN)
  @JsonPropertyDescription(
      "How long this step may take, re-checks included, before the next one is tried, e.g. 10m."
          + " Default: RestartSlurmd 10m, Reboot 30m, Replace 2h.")
  private String timeout;

  public Action getAction() {
    return action;
  }

  public void setAction(Action action) {
    this.action = action;
  }

  public String getTimeout() {
    return timeout;
  }

  public void setTimeout(String timeout) {
    this.timeout = timeout;
  }
}
