package dev.tandem.workflows.model;

/**
 * Where a node is in its lifecycle (docs/architecture.md, flow 1):
 *
 * <pre>
 * provisioning -> registering -> ready -> draining -> drained -> updating -> registering -> ...
 *                                                            \-> deleting -> deleted
 * </pre>
 */
public enum NodePhase {
  /** The pod is being created and started. */
  PROVISIONING,
  /** The pod runs; waiting for its slurmd to register with slurmctld. */
  REGISTERING,
  /** Registered and in service (Slurm may still show an administrator's drain). */
  READY,
  /** Drained in Slurm; waiting for running jobs to end. */
  DRAINING,
  /** No job runs; held out of service (manual drain) or about to be updated or deleted. */
  DRAINED,
  /** The pod is being replaced with a new revision. */
  UPDATING,
  /** The pod and the Slurm node record are being removed. */
  DELETING,
  /** Gone. The workflow ends. */
  DELETED;

  /** Lower-case, as shown in tables and search attributes. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
