package dev.tandem.workflows.remediation;

import dev.tandem.workflows.Names;
import java.util.ArrayList;
import java.util.List;

/**
 * The ends of the ladder. Each effect is idempotent and the terminal step is entered only when the
 * slot went back, so a failed call is simply tried again (a slot is never leaked).
 *
 * <ol>
 *   <li>Returning: {@code undrain} (owner remediation) to every node workflow (they lift only
 *       Tandem's own drain; an administrator's stays), give the slot back, a Normal event,
 *       RECOVERED.
 *   <li>Failing (every rung tried): {@code drain} again with a reason a human reads (what was
 *       tried, the last re-check), give the slot back, a Warning event on the Node, FAILED. The
 *       node stays drained.
 * </ol>
 */
final class Endings {
  private final Ladder l;
  private final LadderEffects fx;

  Endings(Ladder l, LadderEffects fx) {
    this.l = l;
    this.fx = fx;
  }

  Tick returning() {
    if (!l.undrainSent) {
      fx.signalNodes(Names.SIGNAL_UNDRAIN, "recovered: " + l.cause());
      l.undrainSent = true;
    }
    if (!fx.releaseSlot(RemediationStep.RECOVERED.label())) {
      return Tick.stay(EarlySteps.RETRY_SECONDS);
    }
    String how = l.currentRung() == null ? "" : " after " + l.currentRung().action().label();
    l.outcome = "healthy again" + how + "; back in service";
    event("Normal", "RemediationRecovered", l.outcome + " (cause: " + l.cause() + ")");
    l.enter(RemediationStep.RECOVERED, "recovered", l.outcome);
    return Tick.next();
  }

  Tick fail() {
    String why = failure();
    if (!l.failDrainSent) {
      fx.signalNodes(Names.SIGNAL_DRAIN, why);
      l.failDrainSent = true;
    }
    if (!fx.releaseSlot(RemediationStep.FAILED.label() + ": " + why)) {
      return Tick.stay(EarlySteps.RETRY_SECONDS);
    }
    l.outcome = why;
    event("Warning", "RemediationFailed", why);
    l.enter(RemediationStep.FAILED, "failed", why);
    return Tick.next();
  }

  /** One line for the drain reason, the event and the outcome. */
  String failure() {
    List<String> tried = new ArrayList<>();
    List<LadderStep> steps = l.policy().steps();
    for (int i = 0; i <= l.rung && i < steps.size(); i++) {
      tried.add(steps.get(i).action().label());
    }
    String last = l.lastCheck == null ? "no re-check answered" : l.lastCheck.summary();
    return "remediation failed ("
        + (tried.isEmpty() ? "no step to try" : "tried " + String.join(", ", tried))
        + "): "
        + l.cause()
        + "; last check: "
        + last;
  }

  private void event(String type, String reason, String message) {
    fx.run(
        "record event",
        () ->
            fx.remediation("event " + reason + " on " + l.k8sNode)
                .nodeEvent(l.k8sNode, type, reason, message));
  }
}
