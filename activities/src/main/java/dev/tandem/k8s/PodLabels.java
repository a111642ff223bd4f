package dev.tandem.k8s;

import dev.tandem.workflows.Names;

/** Labels Tandem puts on slurmd pods; users and watchers select on them. Add, never rename. */
public final class PodLabels {
  private PodLabels() {}

  public static final String NODESET = Names.PREFIX + "nodeset";
  public static final String ORDINAL = Names.PREFIX + "ordinal";
  public static final String REVISION = Names.PREFIX + "revision";
  public static final String APP_NAME = "app.kubernetes.io/name";
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";

  /**
   * Set ({@value #EVICTABLE_VALUE}) by the node workflow only while its node is drained in Slurm
   * and runs no job; the NodeSet's PodDisruptionBudget selects pods WITHOUT it, so every other
   * slurmd pod is protected from eviction (docs/concepts.md, "Evictions and kubectl drain").
   */
  public static final String EVICTABLE = Names.PREFIX + "evictable";

  public static final String EVICTABLE_VALUE = "true";

  public static final String APP_NAME_VALUE = "slurmd";
  public static final String MANAGED_BY_VALUE = "tandem";

  /** Name of the PodDisruptionBudget that keeps a NodeSet's busy pods from being evicted. */
  public static String budgetName(String nodeSet) {
    return nodeSet + BUDGET_SUFFIX;
  }

  /** The NodeSet whose budget this is, from its (immutable) name; null if not a budget's name. */
  public static String budgetNodeSet(String budgetName) {
    return budgetName.endsWith(BUDGET_SUFFIX) && budgetName.length() > BUDGET_SUFFIX.length()
        ? budgetName.substring(0, budgetName.length() - BUDGET_SUFFIX.length())
        : null;
  }

  private static final String BUDGET_SUFFIX = "-slurm-jobs";

  /**
   * The label selector of a NodeSet's pods, as written to {@code status.selector} for the scale
   * subresource. Equality only: the simplest selector every client and API server reads alike.
   */
  public static String selector(String nodeSet) {
    return NODESET + "=" + nodeSet;
  }
}
