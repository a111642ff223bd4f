package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * How many Kubernetes nodes may be out of service through automatic actions at once.
 *
 * @param maxPerNodeSet at most this many nodes hosting this NodeSet's slurmd pods (>= 1), or 0 when
 *     not written: then one, but never the NodeSet's last node ({@link #nodeSetLimit})
 * @param domainLabel a Kubernetes node label (rack, NVLink domain, InfiniBand leaf), or null for
 *     none
 * @param maxPerDomain at most this many nodes with the same value of {@code domainLabel} (>= 1)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RemediationBudget(int maxPerNodeSet, String domainLabel, int maxPerDomain) {
  public RemediationBudget {
    maxPerNodeSet = Math.max(0, maxPerNodeSet);
    maxPerDomain = Math.max(1, maxPerDomain);
  }

  /** Nothing written: one node per NodeSet but never its last, one per domain. */
  public static RemediationBudget defaults() {
    return new RemediationBudget(0, null, 1);
  }

  /**
   * The NodeSet scope's limit: {@code maxPerNodeSet} as the operator wrote it; when not written
   * ({@code <= 0}), one, but never the last of the {@code nodes} Kubernetes nodes hosting the
   * NodeSet's slurmd pods (so a NodeSet on one node is never drained automatically).
   */
  public static int nodeSetLimit(int maxPerNodeSet, int nodes) {
    return maxPerNodeSet > 0 ? maxPerNodeSet : Math.max(0, Math.min(1, nodes - 1));
  }
}
