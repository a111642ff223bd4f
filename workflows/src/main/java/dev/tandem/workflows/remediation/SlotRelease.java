package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * Payload of {@code release} to {@code remediation-budget}.
 *
 * @param k8sNode the node giving back its slot or place in line
 * @param note how its remediation ended (e.g. {@code Recovered}, {@code Failed: ...})
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SlotRelease(String k8sNode, String note) {}
