package dev.tandem.workflows.remediation;

/** Where a health check within {@link RemediationStep#HEALTH_CHECKING} stands (carried). */
public enum HealthCheckPhase {
  /** Reservation and job not yet confirmed. */
  STARTING,
  /** The job is submitted; remediation's drain is to be lifted so it can run. */
  UNDRAINING,
  /** Waiting for the job's result. */
  POLLING,
  /** The job passed; cancel/clean up, then return to service. */
  ENDING_PASSED,
  /** The job failed; clean up, drain again, back to the rung. */
  ENDING_FAILED
}
