package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * Where a health-check job stands.
 *
 * @param state pending or running, passed, or failed
 * @param detail what Slurm said (state, exit code, reason), for the timeline
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record HealthCheckResult(State state, String detail) {
  /** The job's outcome as the ladder sees it. */
  public enum State {
    /** Pending or running. */
    RUNNING,
    /** Completed with exit code 0. */
    PASSED,
    /** Ended otherwise, or Slurm no longer knows the job (fail closed). */
    FAILED
  }

  public static HealthCheckResult running(String detail) {
    return new HealthCheckResult(State.RUNNING, detail);
  }

  public static HealthCheckResult passed(String detail) {
    return new HealthCheckResult(State.PASSED, detail);
  }

  public static HealthCheckResult failed(String detail) {
    return new HealthCheckResult(State.FAILED, detail);
  }
}
