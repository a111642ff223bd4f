package dev.tandem.workflows.remediation;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.TimeoutAction;
import java.util.ArrayList;
import java.util.List;

/**
 * The steps before the first action: observing, waiting for a slot, draining. Waiting for jobs is
 * in {@link JobWait}; the action rungs in {@link ActionSteps}.
 */
final class EarlySteps {
  /** How often a failed read is tried again. */
  static final long RETRY_SECONDS = 30;

  /** A node waiting for a slot asks again this often, so a lost grant never wedges it. */
  static final long ACQUIRE_EVERY_SECONDS = 300;

  private final Ladder l;
  private final LadderEffects fx;

  EarlySteps(Ladder l, LadderEffects fx) {
    this.l = l;
    this.fx = fx;
  }

  /**
   * Reads the target and the policy; a disabled policy dismisses a watcher's trigger and runs an
   * operator's with the defaults; a NotReady trigger waits out the threshold, then re-checks.
   */
  Tick observing() {
    if (l.target == null) {
      RemediationTarget t = fx.target();
      if (t == null) {
        return Tick.stay(RETRY_SECONDS);
      }
      if (!t.exists()) {
        return dismiss("node-gone", "Kubernetes node " + l.k8sNode + " does not exist");
      }
      if (!t.policy().enabled()) {
        if (!hasOperatorTrigger()) {
          return dismiss(
              "policy-disabled",
              "no NodeSet on "
                  + l.k8sNode
                  + " has spec.remediation "
                  + t.nodeSets()
                  + "; only an operator's trigger runs then");
        }
        t = withPolicy(t, RemediationPolicy.defaults());
        l.target = t;
        l.timeline("policy", "no spec.remediation on " + t.nodeSets() + ": operator runs defaults");
      } else {
        l.target = t;
      }
      l.timeline("target", describe(t));
    }
    if (onlyNotReady()) {
      long threshold = l.policy().notReadySeconds();
      long waited = (Ladder.now() - l.startedAt.toEpochMilli()) / 1000;
      if (waited < threshold) {
        return Tick.stay(threshold - waited);
      }
      NodeHealth h = fx.check();
      if (h == null) {
        return Tick.stay(l.policy().recheckSeconds());
      }
      if (h.healthy()) {
        return dismiss("cleared", "healthy again within " + threshold + "s; nothing done");
      }
      l.enter(
          RemediationStep.WAITING_FOR_SLOT,
          "threshold-passed",
          "still bad after " + threshold + "s: " + h.summary());
      return Tick.next();
    }
    l.enter(RemediationStep.WAITING_FOR_SLOT, "started", l.cause());
    return Tick.next();
  }

  /** Asks the budget (again every few minutes) until {@code slotGranted} arrives. */
  Tick waitingForSlot() {
    if (l.granted) {
      l.enter(RemediationStep.DRAINING, "slot-granted", "");
      return Tick.next();
    }
    long since = l.lastAcquireMillis < 0 ? Long.MAX_VALUE : (Ladder.now() - l.lastAcquireMillis);
    if (since >= ACQUIRE_EVERY_SECONDS * 1000) {
      if (!fx.requestSlot()) {
        return Tick.stay(RETRY_SECONDS);
      }
      since = 0;
    }
    return Tick.stay(ACQUIRE_EVERY_SECONDS - since / 1000);
  }

  /** Asks every node workflow on the node to hold a {@code remediation} drain. */
  Tick draining() {
    List<NodeRef> sent = fx.signalNodes(Names.SIGNAL_DRAIN, l.cause());
    l.enter(
        RemediationStep.WAITING_FOR_JOBS,
        "drain-requested",
        sent.size() + " of " + l.target.slurmNodes().size() + " node workflows: " + names(sent));
    return Tick.next();
  }

  private Tick dismiss(String event, String why) {
    l.outcome = why;
    l.enter(RemediationStep.DISMISSED, event, why);
    return Tick.next();
  }

  private boolean hasOperatorTrigger() {
    return l.triggers.stream().anyMatch(t -> t.valid() && t.kind() == TriggerKind.OPERATOR);
  }

  /** Only NotReady triggers so far: a condition, Slurm reason or operator skips the threshold. */
  boolean onlyNotReady() {
    return l.triggers.stream()
        .filter(RemediationTrigger::valid)
        .allMatch(t -> t.kind() == TriggerKind.NOT_READY);
  }

  static RemediationTarget withPolicy(RemediationTarget t, RemediationPolicy p) {
    return new RemediationTarget(
        t.k8sNode(), t.exists(), t.slurmNodes(), t.nodeSets(), t.labels(), p, t.shape());
  }

  private static String describe(RemediationTarget t) {
    StringBuilder b = new StringBuilder("Slurm nodes ").append(names(t.slurmNodes()));
    b.append(" of ").append(t.nodeSets());
    List<String> steps = new ArrayList<>();
    for (LadderStep s : t.policy().steps()) {
      steps.add(s.action().label() + " " + s.timeoutSeconds() + "s");
    }
    DrainPolicy jobs = t.policy().jobs();
    b.append("; steps ").append(steps);
    b.append("; jobs ")
        .append(jobs.hasTimeout() ? jobs.timeoutSeconds() + "s then " + jobs.onTimeout() : "wait");
    return b.toString();
  }

  static String names(List<NodeRef> nodes) {
    List<String> n = new ArrayList<>();
    for (NodeRef r : nodes) {
      n.add(r.pod());
    }
    return String.join(", ", n);
  }

  static boolean force(DrainPolicy p) {
    return p.onTimeout() == TimeoutAction.FORCE;
  }
}
