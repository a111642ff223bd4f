package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * A NodeSet's {@code spec.remediation.healthCheck}: a batch job submitted through Slurm to the
 * repaired node after its re-check passed (docs/remediation.md, "Health-check job").
 *
 * @param script the batch script; exit 0 passes, anything else fails
 * @param timeoutSeconds how long the job may take, pending included; then the check failed
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record HealthCheck(String script, long timeoutSeconds) {}
