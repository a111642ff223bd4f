package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Instant;

/**
 * Place one pod where its running placeholder job runs, in one call ({@code
 * SchedulingActivities.placePod}, {@code Versions.ONE_CALL_BIND}).
 *
 * @param namespace pod namespace
 * @param name pod name
 * @param uid pod uid (a pod of the same name with another uid is neither bound nor written)
 * @param jobId placeholder job id (annotation {@code tandem.dev/job-id})
 * @param slurmNode the Slurm node the job runs on (annotation {@code tandem.dev/slurm-node})
 * @param at the workflow's time: the {@code SlurmScheduled=True} condition's transition time
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PlacementRequest(
    String namespace, String name, String uid, long jobId, String slurmNode, Instant at) {

  /** The same pod's bind request to Kubernetes node {@code k8sNode}. */
  public BindRequest bindTo(String k8sNode) {
    return new BindRequest(namespace, name, uid, k8sNode, jobId, slurmNode);
  }
}
