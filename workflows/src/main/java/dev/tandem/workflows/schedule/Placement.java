package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.PodView;

/**
 * What {@code SchedulingActivities.placePod} did.
 *
 * @param k8sNode the Kubernetes node that hosts the Slurm node; null if no running slurmd pod
 *     serves it (nothing was bound then)
 * @param pod the pod after the bind ({@link PodView#absent} if it is gone or has another uid); null
 *     when {@code k8sNode} is
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Placement(String k8sNode, PodView pod) {}
