package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * Bind one pod to the Kubernetes node that hosts its placeholder job's Slurm node.
 *
 * @param namespace pod namespace
 * @param name pod name
 * @param uid pod uid (a pod of the same name with another uid is not bound)
 * @param k8sNode target Kubernetes node
 * @param jobId placeholder job id (annotation {@code tandem.dev/job-id})
 * @param slurmNode Slurm node (annotation {@code tandem.dev/slurm-node})
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record BindRequest(
    String namespace, String name, String uid, String k8sNode, long jobId, String slurmNode) {}
