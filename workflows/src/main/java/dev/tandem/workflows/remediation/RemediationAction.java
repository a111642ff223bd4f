package dev.tandem.workflows.remediation;

/** An action step of the ladder, in the order a policy lists them. */
public enum RemediationAction {
  /** Delete the slurmd pods on the node; their NodeSet recreates them (slurmd starts afresh). */
  RESTART_SLURMD("RestartSlurmd", RemediationStep.RESTARTING_SLURMD),
  /** Ask for a reboot of the Kubernetes node through the configured reboot action. */
  REBOOT("Reboot", RemediationStep.REBOOTING),
  /** Cordon, then delete the Kubernetes node or mark it for the provider (see ReplaceMode). */
  REPLACE("Replace", RemediationStep.REPLACING);

  private final String label;
  private final RemediationStep step;

  RemediationAction(String label, RemediationStep step) {
    this.label = label;
    this.step = step;
  }

  /** As spelled in {@code spec.remediation.steps[].action}. */
  public String label() {
    return label;
  }

  /** The workflow state while this action runs and is re-checked. */
  public RemediationStep step() {
    return step;
  }
}
