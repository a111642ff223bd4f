package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Instant;
import java.util.List;

/**
 * Answer of the {@code status} query of a pod's scheduling workflow.
 *
 * @param pod {@code <ns>/<name>}
 * @param uid pod uid
 * @param phase where scheduling stands
 * @param phaseSince when it entered the phase
 * @param jobId placeholder job id, or 0 before it is submitted
 * @param jobState the job's last known Slurm state, or null
 * @param qos the QOS the job asks for (annotation or PriorityClass map), or null for the account's
 *     default
 * @param slurmNode the Slurm node the job runs on, or null
 * @param k8sNode the Kubernetes node the pod is bound to, or null
 * @param problem what currently keeps it from progressing (an unreachable Slurm, an unknown node),
 *     or null
 * @param invalid why the pod cannot be scheduled (phase INVALID), else empty
 * @param timeline what happened, oldest first
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PodScheduleStatus(
    String pod,
    String uid,
    SchedulePhase phase,
    Instant phaseSince,
    long jobId,
    String jobState,
    String qos,
    String slurmNode,
    String k8sNode,
    String problem,
    List<String> invalid,
    List<ScheduleTimelineEntry> timeline) {}
