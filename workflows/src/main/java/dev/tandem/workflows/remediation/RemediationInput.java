package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * Input of {@code remediation/<k8s-node>}.
 *
 * @param k8sNode the Kubernetes node
 * @param carried the state a continue-as-new hands over, or null for a fresh start (the trigger
 *     then arrives as the signal of the signal-with-start)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RemediationInput(String k8sNode, RemediationState carried) {}
