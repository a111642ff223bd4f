package dev.tandem.workflows.remediation;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.remediation.RemediationState.CheckState;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

/**
 * The optional health-check job (docs/remediation.md, "Health-check job"): entered when a rung's
 * re-check passed and the policy has {@code healthCheck}.
 *
 * <ol>
 *   <li>STARTING: {@code startHealthCheck} creates the reservation first (so when the drain lifts
 *       no other job can land on the node), then submits one job with a deterministic token (a
 *       retried call finds the job it submitted).
 *   <li>UNDRAINING: {@code undrain} (owner remediation) to each node workflow. They lift Slurm's
 *       drain only when no other owner holds one; then the job stays pending and times out.
 *   <li>POLLING: {@code healthCheckResult} every {@code recheckSeconds} until PASSED or FAILED, or
 *       the check's timeout (counted from entering HealthChecking): FAILED.
 *   <li>ENDING: {@code endHealthCheck} (cancel, delete the reservation) until it went through.
 *       Passed: RETURNING. Failed: {@code drain} again (same reason as the first drain), back into
 *       the rung's waiting with its own start time, so its timeout still counts from entering the
 *       rung (already past: the next rung, as a timeout does).
 * </ol>
 *
 * <p>Every phase is carried in {@link CheckState}: a continue-as-new or worker restart never
 * submits twice or loses the job id.
 */
final class HealthChecks {
  private final Ladder l;
  private final LadderEffects fx;

  HealthChecks(Ladder l, LadderEffects fx) {
    this.l = l;
    this.fx = fx;
  }

  /** After a passed re-check: enters HEALTH_CHECKING when the policy has a health check. */
  boolean begin(String label) {
    HealthCheck hc = l.policy().healthCheck();
    if (hc == null) {
      return false;
    }
    int count = l.check == null ? 1 : l.check.count() + 1;
    Instant rungSince = Instant.ofEpochMilli(l.stepSinceMillis);
    Instant actionAt = l.actionAt;
    l.check = new CheckState(count, HealthCheckPhase.STARTING, null, rungSince, null);
    l.enter(
        RemediationStep.HEALTH_CHECKING,
        "recheck-passed",
        label + " worked; health-check job next (timeout " + hc.timeoutSeconds() + "s)");
    l.actionAt = actionAt; // the rung's action stays done (a failed check returns to the rung)
    return true;
  }

  Tick checking() {
    CheckState c = l.check;
    HealthCheck hc = l.policy().healthCheck();
    if (c == null || c.phase() == null || hc == null) {
      // Cannot happen with a carried state; fail closed: no return to service unchecked.
      set(c == null ? 1 : c.count(), HealthCheckPhase.ENDING_FAILED, null, "no health check state");
      c = l.check;
    }
    long timeout = hc == null ? 0 : hc.timeoutSeconds();
    long left = timeout - l.secondsInStep();
    boolean ending =
        c.phase() == HealthCheckPhase.ENDING_PASSED || c.phase() == HealthCheckPhase.ENDING_FAILED;
    if (!ending && left <= 0) {
      String detail =
          "did not finish in "
              + timeout
              + "s"
              + (c.jobId() == null ? " (no job was submitted)" : " (job " + c.jobId() + ")")
              + "; a job that never started may wait on a drain remediation does not own (an"
              + " administrator's or another cause's), which stays";
      set(c.count(), HealthCheckPhase.ENDING_FAILED, c.jobId(), detail);
      return Tick.next();
    }
    long recheck = Math.max(1, Math.min(l.policy().recheckSeconds(), left));
    switch (c.phase()) {
      case STARTING -> {
        String token = token(c.count());
        Long id =
            fx.call(
                "start the health-check job",
                () ->
                    fx.remediation("start the health-check job on " + l.k8sNode)
                        .startHealthCheck(l.target, token));
        if (id == null) {
          return Tick.stay(Math.min(EarlySteps.RETRY_SECONDS, recheck));
        }
        set(c.count(), HealthCheckPhase.UNDRAINING, id, null);
        l.timeline(
            "health-check-started",
            "job " + id + " in reservation tandem-check-" + l.k8sNode + ", token " + token);
        return Tick.next();
      }
      case UNDRAINING -> {
        fx.signalNodes(Names.SIGNAL_UNDRAIN, "health check: " + l.cause());
        set(c.count(), HealthCheckPhase.POLLING, c.jobId(), null);
        return Tick.next();
      }
      case POLLING -> {
        long id = c.jobId();
        HealthCheckResult r =
            fx.call(
                "ask for the health-check result",
                () ->
                    fx.remediation("health-check job " + id + " on " + l.k8sNode)
                        .healthCheckResult(id));
        if (r == null || r.state() == null || r.state() == HealthCheckResult.State.RUNNING) {
          return Tick.stay(recheck);
        }
        boolean passed = r.state() == HealthCheckResult.State.PASSED;
        set(
            c.count(),
            passed ? HealthCheckPhase.ENDING_PASSED : HealthCheckPhase.ENDING_FAILED,
            id,
            "job " + id + ": " + r.detail());
        return Tick.next();
      }
      default -> {
        return end(c);
      }
    }
  }

  private Tick end(CheckState c) {
    long id = c.jobId() == null ? 0 : c.jobId();
    boolean ended =
        fx.run(
            "end the health check",
            () ->
                fx.remediation("end the health check on " + l.k8sNode)
                    .endHealthCheck(l.k8sNode, id));
    if (!ended) {
      return Tick.stay(EarlySteps.RETRY_SECONDS);
    }
    if (c.phase() == HealthCheckPhase.ENDING_PASSED) {
      l.check = new CheckState(c.count(), null, null, null, null);
      l.enter(RemediationStep.RETURNING, "health-check-passed", c.failure());
      return Tick.next();
    }
    fx.signalNodes(Names.SIGNAL_DRAIN, l.cause());
    l.timeline("health-check-failed", c.failure());
    LadderStep rung = l.currentRung();
    Instant actionAt = l.actionAt;
    l.check = new CheckState(c.count(), null, null, null, c.failure());
    if (rung == null) {
      l.exhausted = true;
      return Tick.next();
    }
    l.enter(rung.action().step(), "back-to-step", rung.action().label() + ": re-check again");
    l.stepSinceMillis = c.rungSince() == null ? l.stepSinceMillis : c.rungSince().toEpochMilli();
    l.actionAt = actionAt == null ? Instant.ofEpochMilli(l.stepSinceMillis) : actionAt;
    // The reboot happened (the re-check only ran after it was confirmed).
    l.rebootConfirmed = true;
    return Tick.next();
  }

  private void set(int count, HealthCheckPhase phase, Long jobId, String detail) {
    Instant rungSince = l.check == null ? null : l.check.rungSince();
    l.check = new CheckState(count, phase, jobId, rungSince, detail);
  }

  /**
   * The same token for the same check in every run and on every replay: the node, the first
   * trigger's time, the rung and the count of checks (a continue-as-new keeps all four).
   */
  String token(int count) {
    String key = l.k8sNode + "/" + l.startedAt.toEpochMilli() + "/" + l.rung + "/check/" + count;
    return UUID.nameUUIDFromBytes(key.getBytes(StandardCharsets.UTF_8)).toString();
  }
}
