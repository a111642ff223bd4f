package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;

/**
 * {@code spec.remediation.jobs}: like {@link DrainSpec}, but with the defaults of a broken node
 * (jobs there rarely finish well): 2h, then Force.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RemediationJobsSpec {

  @Pattern(DrainSpec.DURATION_PATTERN)
  @JsonPropertyDescription(
      "How long to wait for running jobs after the drain, e.g. 2h. Default 2h.")
  private String timeout;

  @JsonPropertyDescription(
      "Force (default): mark the Slurm nodes DOWN, which requeues or kills their jobs, and go on."
          + " Wait: keep waiting (the remediation says so in its status).")
  private DrainSpec.OnTimeout onTimeout;

  public String getTimeout() {
    return timeout;
  }

  public void setTimeout(String timeout) {
    this.timeout = timeout;
  }

  public DrainSpec.OnTimeout getOnTimeout() {
    return onTimeout;
  }

  public void setOnTimeout(DrainSpec.OnTimeout onTimeout) {
    this.onTimeout = onTimeout;
  }
}
