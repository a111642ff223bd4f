package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.Tuning;

/**
 * Input of {@code remediation/<k8s-node>}.
 *
 * @param k8sNode the Kubernetes node
 * @param carried the state a continue-as-new hands over, or null for a fresh start (the trigger
 *     then arrives as the signal of the signal-with-start)
 * @param tuning the worker's tuning (search attributes on or off, history bound), or null for
 *     {@link Tuning#defaults()}
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RemediationInput(String k8sNode, RemediationState carried, Tuning tuning) {
  public RemediationInput(String k8sNode, RemediationState carried) {
    this(k8sNode, carried, null);
  }

  /** {@link #tuning} or the defaults. */
  public Tuning tuningOrDefaults() {
    return tuning == null ? Tuning.defaults() : tuning;
  }
}
