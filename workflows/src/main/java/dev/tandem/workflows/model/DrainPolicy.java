package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * How long a drain may wait for running jobs, and what happens then.
 *
 * @param timeoutSeconds 0 means no timeout (wait for the jobs however long they run)
 * @param onTimeout what to do when the timeout expires
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record DrainPolicy(long timeoutSeconds, TimeoutAction onTimeout) {
  public DrainPolicy {
    if (timeoutSeconds < 0) {
      throw new IllegalArgumentException("timeoutSeconds must be >= 0");
    }
    onTimeout = onTimeout == null ? TimeoutAction.WAIT : onTimeout;
  }

  /** Wait for the jobs, however long they take. The safe default. */
  public static DrainPolicy waitForever() {
    return new DrainPolicy(0, TimeoutAction.WAIT);
  }

  public boolean hasTimeout() {
    return timeoutSeconds > 0;
  }
}
