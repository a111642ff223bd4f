package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;

/** {@code spec.remediation.budget}: the budget of every automatic drain (docs/remediation.md). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.maxPerDomain) || has(self.domainLabel)",
    message = "maxPerDomain needs domainLabel, the node label naming the domain")
public class RemediationBudgetSpec {

  @Min(1)
  @JsonPropertyDescription(
      "At most this many Kubernetes nodes hosting this NodeSet's pods out of service through"
          + " automatic actions at once: in remediation or drained as unhealthy (the rest stay in"
          + " service, condition AutomaticDrainsHeld). Applies with enabled: false too. Default 1.")
  private Integer maxPerNodeSet;

  @JsonPropertyDescription(
      "A Kubernetes node label naming a topology domain (rack, NVLink domain, InfiniBand leaf),"
          + " e.g. topology.kubernetes.io/rack. Unset: no per-domain budget.")
  private String domainLabel;

  @Min(1)
  @JsonPropertyDescription(
      "At most this many nodes with the same domainLabel value in remediation or drained as"
          + " unhealthy at once. Default 1.")
  private Integer maxPerDomain;

  public Integer getMaxPerNodeSet() {
    return maxPerNodeSet;
  }

  public void setMaxPerNodeSet(Integer maxPerNodeSet) {
    this.maxPerNodeSet = maxPerNodeSet;
  }

  public String getDomainLabel() {
    return domainLabel;
  }

  public void setDomainLabel(String domainLabel) {
    this.domainLabel = domainLabel;
  }

  public Integer getMaxPerDomain() {
    return maxPerDomain;
  }

  public void setMaxPerDomain(Integer maxPerDomain) {
    this.maxPerDomain = maxPerDomain;
  }
}
