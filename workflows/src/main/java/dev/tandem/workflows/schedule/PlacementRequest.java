package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.EventRequest;
import java.time.Instant;

/**
 * Place one pod where its running placeholder job runs, in one call ({@code
 * SchedulingActivities.placePod}).
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

  /** {@code SlurmScheduled=True} for the pod bound to {@code k8sNode}, at {@link #at}. */
  public Condition boundCondition(String k8sNode) {
    return new Condition(
        ScheduleConditions.SLURM_SCHEDULED,
        Condition.TRUE,
        ScheduleConditions.JOB_RUNNING,
        ScheduleConditions.boundMessage(jobId, slurmNode, k8sNode),
        at);
  }

  /** The {@code Scheduled} event of the pod bound to {@code k8sNode}. */
  public EventRequest boundEvent(String k8sNode) {
    return EventRequest.pod(
        namespace,
        name,
        uid,
        false,
        ScheduleConditions.SCHEDULED_EVENT,
        ScheduleConditions.boundEvent(jobId, slurmNode, k8sNode));
  }

  /** The same pod's bind request to Kubernetes node {@code k8sNode}. */
  public BindRequest bindTo(String k8sNode) {
    return new BindRequest(namespace, name, uid, k8sNode, jobId, slurmNode);
  }
}
