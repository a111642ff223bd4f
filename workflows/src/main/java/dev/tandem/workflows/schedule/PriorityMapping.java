package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * What a Kubernetes PriorityClass means to Slurm (the configurable PriorityClass map). The job's
 * absolute {@code priority} is deliberately not mapped: it overrides Slurm's multifactor priority
 * (fair share, age) altogether; QOS and nice adjust it instead.
 *
 * @param qos QOS for the placeholder job, or null (the annotation {@code tandem.dev/qos} wins over
 *     it)
 * @param nice Slurm nice value (negative raises priority, which Slurm allows only to privileged
 *     users such as the one slurmrestd submits as), or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PriorityMapping(String qos, Integer nice) {}
