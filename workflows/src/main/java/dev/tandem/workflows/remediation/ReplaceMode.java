package dev.tandem.workflows.remediation;

/** How the {@code Replace} step replaces a Kubernetes node. */
public enum ReplaceMode {
  /**
   * Cordon and annotate {@code tandem.dev/replace-requested}; the provider's automation (or a
   * human) replaces the machine. The default: Tandem never deletes a Node object unless told to.
   */
  MARK,
  /** Cordon and delete the Node object (cluster-autoscaler / Karpenter style replacement). */
  DELETE
}
