package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.time.Instant;
import java.util.List;

/**
 * The one serializable state of a remediation (query answer and continue-as-new carrier).
 *
 * @param k8sNode the Kubernetes node
 * @param step where it stands
 * @param stepSince when it entered {@code step}
 * @param startedAt when the first trigger arrived
 * @param triggers every trigger received, first one first (the first is the cause)
 * @param target what the node was when the ladder began, read once at the start (null until read)
 * @param rung index into the policy's steps of the action being tried (-1 before the first)
 * @param lastCheck the last re-check, or null
 * @param outcome one line for a terminal state (why Failed, Dismissed or Recovered), else null
 * @param timeline the record shown by {@code tandem history}, bounded (oldest dropped first)
 * @param actionAt when the current rung's action was carried out, or null if not yet (so that a
 *     continue-as-new or a restart never repeats it)
 * @param check the health check under way (in {@link RemediationStep#HEALTH_CHECKING}, and the
 *     count of checks started so far), or null before the first
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RemediationState(
    String k8sNode,
    RemediationStep step,
    Instant stepSince,
    Instant startedAt,
    List<RemediationTrigger> triggers,
    RemediationTarget target,
    int rung,
    NodeHealth lastCheck,
    String outcome,
    List<RemediationTimelineEntry> timeline,
    Instant actionAt,
    CheckState check) {
  public RemediationState(
      String k8sNode,
      RemediationStep step,
      Instant stepSince,
      Instant startedAt,
      List<RemediationTrigger> triggers,
      RemediationTarget target,
      int rung,
      NodeHealth lastCheck,
      String outcome,
      List<RemediationTimelineEntry> timeline,
      Instant actionAt) {
    this(
        k8sNode, step, stepSince, startedAt, triggers, target, rung, lastCheck, outcome, timeline,
        actionAt, null);
  }

  public RemediationState(
      String k8sNode,
      RemediationStep step,
      Instant stepSince,
      Instant startedAt,
      List<RemediationTrigger> triggers,
      RemediationTarget target,
      int rung,
      NodeHealth lastCheck,
      String outcome,
      List<RemediationTimelineEntry> timeline) {
    this(
        k8sNode, step, stepSince, startedAt, triggers, target, rung, lastCheck, outcome, timeline,
        null, null);
  }

  public RemediationState {
    triggers = triggers == null ? List.of() : List.copyOf(triggers);
    timeline = timeline == null ? List.of() : List.copyOf(timeline);
  }

  /** The first valid trigger's cause, or null. */
  public String cause() {
    return triggers.stream()
        .filter(RemediationTrigger::valid)
        .findFirst()
        .map(RemediationTrigger::cause)
        .orElse(null);
  }

  /**
   * A health-check job's progress, carried so that a continue-as-new or a worker restart never
   * submits twice or loses the job.
   *
   * @param count health checks started in this remediation (the current one included); part of the
   *     job's deterministic token
   * @param phase where the current one stands
   * @param jobId the Slurm job, or null before it was submitted
   * @param rungSince when the rung being re-checked was entered (its timeout counts from there)
   * @param failure why it failed (phase ENDING_FAILED), else null
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record CheckState(
      int count, HealthCheckPhase phase, Long jobId, Instant rungSince, String failure) {}
}
