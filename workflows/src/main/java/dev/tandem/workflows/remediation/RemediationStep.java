package dev.tandem.workflows.remediation;

/**
 * Where a remediation stands: the entity state of {@code remediation/<k8s-node>}. The ladder runs
 * top to bottom; each action step ends at the first re-check that passes (then {@link #RETURNING})
 * or after its timeout (then the next action step of the policy, or {@link #FAILED}).
 */
public enum RemediationStep {
  /** A Ready=False/Unknown trigger waits out the policy's threshold before anything is done. */
  OBSERVING("Observing", false),
  /** Waiting, in order, for a slot in the budgets (per NodeSet, per topology domain). */
  WAITING_FOR_SLOT("WaitingForSlot", false),
  /** Asking every node workflow on the Kubernetes node to hold a {@code remediation} drain. */
  DRAINING("Draining", false),
  /** Waiting for running jobs (timeout, then the policy: wait on, or force the nodes DOWN). */
  WAITING_FOR_JOBS("WaitingForJobs", false),
  /** Deleting the slurmd pods so their NodeSet recreates them; then re-check. */
  RESTARTING_SLURMD("RestartingSlurmd", false),
  /** Asking for a reboot through the configured action; then re-check. */
  REBOOTING("Rebooting", false),
  /** Cordon, then delete the Kubernetes node or mark it for the provider; wait for health. */
  REPLACING("Replacing", false),
  /**
   * The re-check passed and the policy has a health check: a Slurm job on the node, in a
   * reservation, must pass before the node returns (a failure goes back to the rung).
   */
  HEALTH_CHECKING("HealthChecking", false),
  /** Healthy again: lifting Tandem's remediation drain (never an administrator's). */
  RETURNING("Returning", false),
  /** Done: the node is back in service. */
  RECOVERED("Recovered", true),
  /** Every step was tried and the re-check still fails: left drained for a human. */
  FAILED("Failed", true),
  /** Nothing to do: the trigger cleared before any action, or the policy turns remediation off. */
  DISMISSED("Dismissed", true);

  private final String label;
  private final boolean terminal;

  RemediationStep(String label, boolean terminal) {
    this.label = label;
    this.terminal = terminal;
  }

  /** CamelCase, as shown in {@code tandem remediations} and the search attribute. */
  public String label() {
    return label;
  }

  public boolean terminal() {
    return terminal;
  }
}
