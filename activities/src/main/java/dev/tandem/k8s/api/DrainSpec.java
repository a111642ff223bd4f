package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.ValidationRule;

/** {@code spec.drain} and {@code spec.scaleDown}: how long a drain waits for running jobs. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.onTimeout) || self.onTimeout != 'Force' || has(self.timeout)",
    message = "onTimeout Force needs a timeout, e.g. timeout: 2h")
public class DrainSpec {

  /**
   * One or more number+unit pairs: {@code 90s}, {@code 30m}, {@code 2h}, {@code 1d}, {@code 1h30m}.
   * Days are allowed because drains of long GPU jobs are measured in them.
   */
  public static final String DURATION_PATTERN = "^([0-9]{1,9}(s|m|h|d)){1,4}$";

  /** What happens when the timeout expires, spelled as in the resource. */
  public enum OnTimeout {
    /** Keep waiting for the jobs; the node is reported as stuck. */
    @JsonProperty("Wait")
    Wait,
    /** Mark the node DOWN in Slurm (its jobs are requeued or killed) and go on. */
    @JsonProperty("Force")
    Force
  }

  @Pattern(DURATION_PATTERN)
  @JsonPropertyDescription(
      "How long to wait for running jobs, e.g. 30m, 2h, 1d, 1h30m. Unset: no timeout.")
  private String timeout;

  @Default("Wait")
  @JsonPropertyDescription(
      "Wait: keep waiting after the timeout (the node is reported as stuck). Force: mark the"
          + " node DOWN in Slurm, which requeues or kills its jobs, and go on.")
  private OnTimeout onTimeout;

  public String getTimeout() {
    return timeout;
  }

  public void setTimeout(String timeout) {
    this.timeout = timeout;
  }

  public OnTimeout getOnTimeout() {
    return onTimeout;
  }

  public void setOnTimeout(OnTimeout onTimeout) {
    this.onTimeout = onTimeout;
  }
}
