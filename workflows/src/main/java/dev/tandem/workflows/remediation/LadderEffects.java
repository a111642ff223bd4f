package dev.tandem.workflows.remediation;

import dev.tandem.workflows.activities.RemediationActivities;
import dev.tandem.workflows.activities.SlurmActivities;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.support.ActivityStubs;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The remediation's hands: activity calls (each with a summary the Temporal UI shows) and signals
 * to the node workflows. A call that still fails after its retries does not fail the workflow: it
 * is recorded as a problem in the timeline and the caller gets {@code null}, which every handler
 * treats as unknown (fail closed: never healthy, never idle) and answers by trying again later.
 */
final class LadderEffects {
  private final Ladder l;

  LadderEffects(Ladder l) {
    this.l = l;
  }

  RemediationActivities remediation(String summary) {
    return ActivityStubs.remediation(summary);
  }

  SlurmActivities slurm(String summary) {
    return ActivityStubs.slurm(summary);
  }

  /** Runs {@code f}; on failure records {@code what} as a problem and returns null. */
  <T> T call(String what, Supplier<T> f) {
    try {
      T r = f.get();
      l.lastProblem = null;
      return r;
    } catch (ActivityFailure e) {
      l.problem(what + " failed: " + rootMessage(e));
      return null;
    }
  }

  /** Like {@link #call} for a call without an answer; false when it failed. */
  boolean run(String what, Runnable f) {
    return call(
            what,
            () -> {
              f.run();
              return Boolean.TRUE;
            })
        != null;
  }

  RemediationTarget target() {
    return call(
        "read node " + l.k8sNode,
        () -> remediation("read node " + l.k8sNode + " and its slurmd pods").target(l.k8sNode));
  }

  /** The re-check; null (unknown) when it could not be made. */
  NodeHealth check() {
    NodeHealth h = call("re-check", () -> remediation("re-check " + l.k8sNode).check(l.target));
    if (h != null) {
      l.lastCheck = h;
    }
    return h;
  }

  /** {@code acquire} to the budget (starting it if needed). */
  boolean requestSlot() {
    l.lastAcquireMillis = Ladder.now();
    SlotRequest r = slotRequest();
    return run(
        "ask for a remediation slot",
        () -> remediation("ask for a remediation slot for " + l.k8sNode).requestSlot(r));
  }

  SlotRequest slotRequest() {
    RemediationBudget b = l.policy().budget();
    String label = b.domainLabel();
    String value = label == null ? null : l.target.labels().get(label);
    return SlotRequest.of(
        l.k8sNode,
        l.target.nodeSets(),
        b,
        l.target.shape(),
        value == null ? null : label + "=" + value,
        l.cause(),
        null,
        null);
  }

  /** {@code release} to the budget; retried by the caller's loop until it went out. */
  boolean releaseSlot(String note) {
    return run(
        "give back the remediation slot",
        () ->
            remediation("give back the remediation slot of " + l.k8sNode)
                .releaseSlot(new SlotRelease(l.k8sNode, note)));
  }

  /**
   * Sends {@code signal} (drain or undrain, owner {@code remediation}) to every node workflow of
   * the target. A node workflow that does not run (its pod is gone) is recorded and skipped.
   * Returns the Slurm nodes whose workflow took the signal.
   */
  List<NodeRef> signalNodes(String signal, String reason) {
    List<NodeRef> sent = new ArrayList<>();
    NodeCommand c = NodeCommand.of(DrainCause.REMEDIATION, reason);
    for (NodeRef n : l.target.slurmNodes()) {
      try {
        Workflow.newUntypedExternalWorkflowStub(n.workflowId()).signal(signal, c);
        sent.add(n);
      } catch (SignalExternalWorkflowException | ApplicationFailure e) {
        // A missing target arrives as an ApplicationFailure typed with the cause (see
        // NodeMessenger): the pod and its node workflow are gone, nothing to drain or lift.
        l.timeline(
            "node-skipped",
            signal + " to " + n.workflowId() + " not delivered (not running): " + e.getMessage());
      }
    }
    return sent;
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof ApplicationFailure a ? a.getOriginalMessage() : t.getMessage();
  }
}
