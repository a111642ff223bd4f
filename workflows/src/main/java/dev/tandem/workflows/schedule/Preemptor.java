package dev.tandem.workflows.schedule;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Instant;
import java.util.List;

/**
 * What Slurm tells about a placeholder's preemption ({@code SchedulingActivities.findPreemptor}).
 * No slurmrestd version names the preempting job (22.05's v0.0.38, v0.0.41 and v0.0.44 give the
 * preempted job's {@code preempt_time} and nodes only), so the preemptor is the job that runs on
 * those nodes and started at or after the preemption (after the placeholder's own start when Slurm
 * gives no preemption time). Slurm starts it only once the placeholder is gone, {@code KillWait}
 * after the preemption at most.
 *
 * @param jobId the preempted placeholder job
 * @param nodes the Slurm nodes it held
 * @param preemptedAt Slurm's {@code preempt_time}, or null
 * @param byJob the preempting job's id, or 0 when none runs there yet
 * @param byPartition its partition, or null
 * @param byQos its QOS, or null
 * @param byStart when it started, or null
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Preemptor(
    long jobId,
    List<String> nodes,
    Instant preemptedAt,
    long byJob,
    String byPartition,
    String byQos,
    Instant byStart) {

  public Preemptor {
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
  }

  /** The preempting job runs: Slurm told who it is. */
  public boolean found() {
    return byJob != 0;
  }

  /**
   * {@code Slurm job 57 (partition high, QOS normal) started on n3 at ...: it preempted job 12},
   * or, when no job started there, what is known.
   */
  public String message(long waitedSeconds) {
    String on = nodes.isEmpty() ? "" : " on " + String.join(",", nodes);
    String at = preemptedAt == null ? "" : " at " + preemptedAt;
    if (!found()) {
      return "no other job started"
          + on
          + " within "
          + waitedSeconds
          + " s of job "
          + jobId
          + "'s preemption"
          + at
          + ": Slurm does not name the preempting job";
    }
    StringBuilder b = new StringBuilder("Slurm job ").append(byJob);
    String sep = " (";
    if (byPartition != null && !byPartition.isBlank()) {
      b.append(sep).append("partition ").append(byPartition);
      sep = ", ";
    }
    if (byQos != null && !byQos.isBlank()) {
      b.append(sep).append("QOS ").append(byQos);
      sep = ", ";
    }
    b.append(sep.equals(", ") ? ")" : "");
    return b.append(" started")
        .append(on)
        .append(byStart == null ? "" : " at " + byStart)
        .append(": it preempted job ")
        .append(jobId)
        .append(at)
        .toString();
  }
}
