package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Instant;
import java.util.List;

/**
 * Answer of the {@code status} query of a gang's scheduling workflow.
 *
 * @param group {@code <ns>/<group>}
 * @param phase where scheduling stands
 * @param phaseSince when it entered the phase
 * @param size the group size the members agree on, or 0 before they do
 * @param members every pod seen, in name order
 * @param jobId placeholder job id, or 0 before it is submitted
 * @param jobState the job's last known Slurm state, or null
 * @param qos the QOS the job asks for (the members' annotation or PriorityClass map), or null for
 *     the account's default
 * @param problem what currently keeps it from progressing, or null
 * @param invalid why the group cannot run (phase INVALID), else empty
 * @param timeline what happened, oldest first
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record PodGroupStatus(
    String group,
    GroupPhase phase,
    Instant phaseSince,
    int size,
    List<MemberStatus> members,
    long jobId,
    String jobState,
    String qos,
    String problem,
    List<String> invalid,
    List<GroupTimelineEntry> timeline) {

  /**
   * One member.
   *
   * @param pod {@code <ns>/<name>}
   * @param uid pod uid
   * @param live the pod exists and is not ending
   * @param chosen the job was submitted for it
   * @param slurmNode its Slurm node once bound, or null
   * @param k8sNode its Kubernetes node once bound, or null
   * @param condition reason and message of the last condition Tandem wrote on it, or null
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record MemberStatus(
      String pod,
      String uid,
      boolean live,
      boolean chosen,
      String slurmNode,
      String k8sNode,
      String condition) {}
}
