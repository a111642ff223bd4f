package dev.tandem.workflows.remediation;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The action rungs (restart slurmd, reboot, replace), each tried once and then re-checked.
 *
 * <ol>
 *   <li>On entering a rung, carry out its action once ({@code actionAt} records that it was, so a
 *       continue-as-new or a worker restart never repeats it). A failed call is tried again on the
 *       next tick, within the rung's timeout.
 *   <li>Reboot: poll {@code rebootDone} with the request's token; health is not judged before the
 *       reboot happened (the node may look fine until it goes down).
 *   <li>Re-check every {@code recheckSeconds} or on a {@code recheck} signal: healthy goes to
 *       RETURNING, or first to HEALTH_CHECKING when the policy has a health-check job (see {@link
 *       HealthChecks}; a failed one comes back here). Unhealthy or unknown (the check failed) waits
 *       on. In the Replace rung a Kubernetes node that no longer exists is no problem: its Slurm
 *       nodes must be healthy.
 *   <li>At the rung's timeout (counted from entering it, action included) go to the next rung;
 *       after the last one, to FAILED (see {@link Endings#fail}).
 * </ol>
 */
final class ActionSteps {
  private final Ladder l;
  private final LadderEffects fx;
  private final HealthChecks checks;

  ActionSteps(Ladder l, LadderEffects fx) {
    this.l = l;
    this.fx = fx;
    this.checks = new HealthChecks(l, fx);
  }

  Tick healthChecking() {
    return checks.checking();
  }

  /** Enters rung {@code r} of the policy's steps, or FAILING when there is none left. */
  static Tick enterRung(Ladder l, int r, String event, String detail) {
    List<LadderStep> steps = l.policy().steps();
    if (r < steps.size()) {
      l.enter(steps.get(r).action().step(), r, event, detail);
    } else {
      l.timeline(event, detail);
      l.exhausted = true;
    }
    return Tick.next();
  }

  Tick act() {
    LadderStep rung = l.currentRung();
    if (rung == null) {
      l.exhausted = true; // a carried rung the policy no longer has
      return Tick.next();
    }
    long left = rung.timeoutSeconds() - l.secondsInStep();
    if (left <= 0) {
      String why = l.lastCheck == null ? "no re-check answered" : l.lastCheck.summary();
      return enterRung(
          l,
          l.rung + 1,
          "timeout",
          rung.action().label()
              + " did not bring the node back in "
              + rung.timeoutSeconds()
              + "s: "
              + why);
    }
    long recheck = Math.min(l.policy().recheckSeconds(), left);
    if (l.actionAt == null) {
      if (!carryOut(rung.action())) {
        return Tick.stay(Math.min(EarlySteps.RETRY_SECONDS, left));
      }
      l.actionAt = Instant.ofEpochMilli(Ladder.now());
      return Tick.stay(recheck);
    }
    if (rung.action() == RemediationAction.REBOOT && !l.rebootConfirmed) {
      Boolean done =
          fx.call(
              "ask whether the reboot happened",
              () ->
                  fx.remediation("has " + l.k8sNode + " rebooted?")
                      .rebootDone(l.k8sNode, rebootToken()));
      if (!Boolean.TRUE.equals(done)) {
        return Tick.stay(recheck);
      }
      l.rebootConfirmed = true;
      l.timeline("rebooted", "token " + rebootToken());
    }
    NodeHealth before = l.lastCheck;
    NodeHealth h = fx.check();
    // After a Replace the old Node object may be gone for good (deleted, or the provider brought
    // the machine back under a new name): then the Slurm nodes, wherever their pods run now,
    // are what must be healthy.
    boolean replaced = rung.action() == RemediationAction.REPLACE;
    if (h != null && (replaced ? h.healthyAfterReplace() : h.healthy())) {
      if (checks.begin(rung.action().label())) {
        return Tick.next();
      }
      l.enter(RemediationStep.RETURNING, "recheck-passed", rung.action().label() + " worked");
      return Tick.next();
    }
    if (h != null && (before == null || !before.summary().equals(h.summary()))) {
      l.timeline("recheck-failed", h.summary());
    }
    return Tick.stay(recheck);
  }

  private boolean carryOut(RemediationAction a) {
    String reason = "tandem remediation: " + l.cause();
    switch (a) {
      case RESTART_SLURMD -> {
        List<String> pods =
            fx.call(
                "restart slurmd pods",
                () ->
                    fx.remediation("restart slurmd pods on " + l.k8sNode)
                        .restartSlurmdPods(l.k8sNode, l.target.slurmNodes()));
        if (pods == null) {
          return false;
        }
        l.timeline("action", "restarted slurmd pods: " + (pods.isEmpty() ? "none left" : pods));
        return true;
      }
      case REBOOT -> {
        String token = rebootToken();
        boolean ok =
            fx.run(
                "ask for a reboot",
                () ->
                    fx.remediation("reboot " + l.k8sNode).requestReboot(l.k8sNode, token, reason));
        if (ok) {
          l.timeline("action", "reboot requested, token " + token);
        }
        return ok;
      }
      case REPLACE -> {
        ReplaceMode mode = l.policy().replaceMode();
        boolean ok =
            fx.run(
                "replace the node",
                () ->
                    fx.remediation("replace " + l.k8sNode + " (" + mode + ")")
                        .replaceNode(l.k8sNode, mode, reason));
        if (ok) {
          l.timeline(
              "action",
              "node cordoned and "
                  + (mode == ReplaceMode.DELETE ? "deleted" : "marked for replacement"));
        }
        return ok;
      }
      default -> throw new IllegalStateException("unknown action " + a);
    }
  }

  /**
   * The same token for the same remediation and rung, in every run and on every replay: derived
   * from the node, the first trigger's time and the rung (a continue-as-new keeps all three).
   */
  String rebootToken() {
    String key = l.k8sNode + "/" + l.startedAt.toEpochMilli() + "/" + l.rung;
    return UUID.nameUUIDFromBytes(key.getBytes(StandardCharsets.UTF_8)).toString();
  }
}
