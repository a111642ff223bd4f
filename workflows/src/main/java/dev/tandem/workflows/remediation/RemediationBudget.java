package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * How many Kubernetes nodes may be in remediation at once.
 *
 * @param maxPerNodeSet at most this many nodes hosting this NodeSet's slurmd pods (>= 1)
 * @param domainLabel a Kubernetes node label (rack, NVLink domain, InfiniBand leaf), or null for
 *     none
 * @param maxPerDomain at most this many nodes with the same value of {@code domainLabel} (>= 1)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RemediationBudget(int maxPerNodeSet, String domainLabel, int maxPerDomain) {
  public static RemediationBudget defaults() {
    return new RemediationBudget(1, null, 1);
  }
}
