package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/**
 * {@code spec.remediation.healthCheck}: a batch job submitted through Slurm to the repaired node
 * before it returns to service (docs/remediation.md, "Health-check job").
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RemediationHealthCheckSpec {

  @Required
  @Size(min = 1, max = 65536)
  @JsonPropertyDescription(
      "The batch script (without a #! line it runs under /bin/sh), one job allocated every"
          + " Slurm node of the repaired Kubernetes node, in a reservation, as the user of"
          + " Tandem's Slurm token; it runs on the first node (srun reaches all). Exit 0 passes;"
          + " any other end fails the check and the node goes back to the remediation step.")
  private String script;

  @Pattern(DrainSpec.DURATION_PATTERN)
  @JsonPropertyDescription(
      "How long the job may take, pending included, e.g. 10m; then the check failed. Default"
          + " 10m.")
  private String timeout;

  public String getScript() {
    return script;
  }

  public void setScript(String script) {
    this.script = script;
  }

  public String getTimeout() {
    return timeout;
  }

  public void setTimeout(String timeout) {
    this.timeout = timeout;
  }
}
