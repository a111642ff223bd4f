package dev.tandem.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * A revision of a NodeSet's slurmd pod: everything an activity needs to build the pod. Workflows
 * never look inside {@code templateJson}; they only compare revisions.
 *
 * @param revision short hash of template and Slurm settings, computed outside workflows
 * @param templateJson the NodeSet's {@code spec.template} (a Kubernetes PodTemplateSpec) as JSON
 * @param slurm the NodeSet's Slurm settings
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PodTemplate(String revision, String templateJson, SlurmSettings slurm) {
  public PodTemplate {
    slurm = slurm == null ? SlurmSettings.none() : slurm;
  }
}
