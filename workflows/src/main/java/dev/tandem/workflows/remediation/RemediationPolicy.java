package dev.tandem.workflows.remediation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.TimeoutAction;
import java.util.List;

/**
 * A NodeSet's {@code spec.remediation}, with every field defaulted (docs/remediation.md, "Policy").
 * A NodeSet without the block has no automatic remediation ({@link #enabled} false); an operator's
 * {@code tandem remediate} then runs with {@link #defaults()}.
 *
 * @param enabled whether watchers start remediations for this NodeSet's nodes
 * @param notReadySeconds how long Ready must be False/Unknown before the ladder starts
 * @param conditions node condition types that trigger when True (e.g. GpuUnhealthy)
 * @param slurmReasons regular expressions (case-insensitive, found anywhere) for Slurm drain/DOWN
 *     reasons that mean hardware trouble
 * @param steps the action rungs, in order, each with its timeout
 * @param jobs how long to wait for running jobs after the drain, and what then
 * @param recheckSeconds how often a step re-checks health while it waits
 * @param replaceMode what {@code Replace} does to the Kubernetes node
 * @param budget how many nodes may be in remediation at once
 * @param healthCheck a Slurm job that must pass after the re-check before the node returns, or null
 *     for none
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record RemediationPolicy(
    boolean enabled,
    long notReadySeconds,
    List<String> conditions,
    List<String> slurmReasons,
    List<LadderStep> steps,
    DrainPolicy jobs,
    long recheckSeconds,
    ReplaceMode replaceMode,
    RemediationBudget budget,
    HealthCheck healthCheck) {

  public static final long DEFAULT_NOT_READY_SECONDS = 300;
  public static final List<String> DEFAULT_CONDITIONS = List.of("GpuUnhealthy", "KernelDeadlock");
  public static final List<String> DEFAULT_SLURM_REASONS =
      List.of("not responding", "kill task failed", "\\bNHC\\b", "\\bXID\\b");
  public static final List<LadderStep> DEFAULT_STEPS =
      List.of(
          new LadderStep(RemediationAction.RESTART_SLURMD, 600),
          new LadderStep(RemediationAction.REBOOT, 1800),
          new LadderStep(RemediationAction.REPLACE, 7200));

  /** Jobs on a broken node rarely finish well; two hours, then the nodes are forced DOWN. */
  public static final DrainPolicy DEFAULT_JOBS = new DrainPolicy(7200, TimeoutAction.FORCE);

  public static final long DEFAULT_RECHECK_SECONDS = 30;

  /** The policy without a health check (as before it existed; recorded histories use it). */
  public RemediationPolicy(
      boolean enabled,
      long notReadySeconds,
      List<String> conditions,
      List<String> slurmReasons,
      List<LadderStep> steps,
      DrainPolicy jobs,
      long recheckSeconds,
      ReplaceMode replaceMode,
      RemediationBudget budget) {
    this(
        enabled,
        notReadySeconds,
        conditions,
        slurmReasons,
        steps,
        jobs,
        recheckSeconds,
        replaceMode,
        budget,
        null);
  }

  public RemediationPolicy {
    conditions = conditions == null ? DEFAULT_CONDITIONS : List.copyOf(conditions);
    slurmReasons = slurmReasons == null ? DEFAULT_SLURM_REASONS : List.copyOf(slurmReasons);
    steps = steps == null ? DEFAULT_STEPS : List.copyOf(steps);
    jobs = jobs == null ? DEFAULT_JOBS : jobs;
    notReadySeconds = notReadySeconds <= 0 ? DEFAULT_NOT_READY_SECONDS : notReadySeconds;
    recheckSeconds = recheckSeconds <= 0 ? DEFAULT_RECHECK_SECONDS : recheckSeconds;
    replaceMode = replaceMode == null ? ReplaceMode.MARK : replaceMode;
    budget = budget == null ? RemediationBudget.defaults() : budget;
  }

  /** Every default, enabled: what {@code spec.remediation: {}} means. */
  public static RemediationPolicy defaults() {
    return new RemediationPolicy(true, 0, null, null, null, null, 0, null, null);
  }

  /** No automatic remediation (a NodeSet without {@code spec.remediation}). */
  public static RemediationPolicy disabled() {
    return new RemediationPolicy(false, 0, null, null, null, null, 0, null, null);
  }
}
