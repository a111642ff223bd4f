package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Payload of {@code release} to {@code remediation-budget}.
 *
 * @param k8sNode the node giving back its slot or place in line
 * @param note how its remediation ended (e.g. {@code Recovered}, {@code Failed: ...}), or why the
 *     drain ends ({@code healthy again})
 * @param kind {@link SlotRequest#REMEDIATION} (null reads as it) or {@link SlotRequest#DRAIN}: the
 *     budget then lifts the {@code k8s-unhealthy} drain it set
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SlotRelease(
    String k8sNode, String note, @JsonInclude(JsonInclude.Include.NON_NULL) String kind) {

  public SlotRelease(String k8sNode, String note) {
    this(k8sNode, note, null);
  }

  public String key() {
    return SlotRequest.key(k8sNode, kind);
  }
}
