package dev.tandem.cli;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.remediation.BudgetStatus;
import dev.tandem.workflows.remediation.RemediationBudgetWorkflow;
import dev.tandem.workflows.remediation.RemediationState;
import dev.tandem.workflows.remediation.RemediationWorkflow;
import io.temporal.client.WorkflowException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads remediations by querying their workflows, {@code remediation/<k8s-node>} and {@code
 * remediation-budget} (who holds and who waits for a slot), and lists the running ones from
 * visibility.
 */
final class RemediationLookup {
  private RemediationLookup() {}

  /** A Kubernetes node name: a DNS subdomain (e.g. {@code ip-10-0-0-1.ec2.internal}). */
  static final Pattern K8S_NODE =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");

  /** The prefix that names a remediation explicitly in {@code tandem history}. */
  static final String PREFIX = "remediation/";

  /** Whether {@code name} can be a Kubernetes node's name. */
  static boolean validNode(String name) {
    return name != null && name.length() <= 253 && K8S_NODE.matcher(name).matches();
  }

  /** The remediation's state (also of an ended one), or empty if it never ran. */
  static Optional<RemediationState> state(TemporalSession session, String k8sNode) {
    String id = Names.remediationWorkflowId(k8sNode);
    try {
      return Optional.ofNullable(
          session.query(
              id, () -> session.client().newWorkflowStub(RemediationWorkflow.class, id).status()));
    } catch (WorkflowException e) {
      if (NodeLookup.notFound(e)) {
        return Optional.empty();
      }
      throw new CliException("cannot query " + id + ": " + e.getMessage());
    }
  }

  /**
   * The Kubernetes nodes whose remediation runs, from visibility (one started a moment ago may be
   * missing until visibility has it), in name order.
   */
  static List<String> running(TemporalSession session) {
    return session
        .list(
            "WorkflowType = '"
                + Names.TYPE_REMEDIATION
                + "' AND ExecutionStatus = 'Running' AND WorkflowId STARTS_WITH '"
                + PREFIX
                + "'")
        .stream()
        .map(w -> w.getExecution().getWorkflowId().substring(PREFIX.length()))
        .sorted()
        .toList();
  }

  /** Who holds and who waits for a slot, or empty if the budget workflow never started. */
  static Optional<BudgetStatus> budget(TemporalSession session) {
    String id = Names.REMEDIATION_BUDGET_ID;
    try {
      return Optional.ofNullable(
          session.query(
              id,
              () ->
                  session.client().newWorkflowStub(RemediationBudgetWorkflow.class, id).status()));
    } catch (WorkflowException e) {
      if (NodeLookup.notFound(e)) {
        return Optional.empty();
      }
      throw new CliException("cannot query " + id + ": " + e.getMessage());
    }
  }

  /**
   * How long ago {@code since} was, as the tables show it ({@code 42s}, {@code 5m}, {@code 3h}).
   */
  static String age(Instant since, Instant now) {
    if (since == null) {
      return "-";
    }
    Duration d = Duration.between(since, now);
    return Durations.format(Duration.ofSeconds(Math.max(0, d.toSeconds())));
  }

  /** {@code Rebooting}, or {@code ?} for a state without a step. */
  static String step(RemediationState s) {
    return s.step() == null ? "?" : s.step().label();
  }

  /** The same, short, for a table cell: {@code held 20m}, {@code waiting 2m: <why>}, {@code -}. */
  static String slotCell(Optional<BudgetStatus> budget, String k8sNode, Instant now) {
    if (budget.isPresent()) {
      for (BudgetStatus.Entry e : budget.get().holders()) {
        if (k8sNode.equals(e.request().k8sNode())) {
          return "held " + age(e.since(), now) + kind(e);
        }
      }
      for (BudgetStatus.Entry e : budget.get().waiting()) {
        if (k8sNode.equals(e.request().k8sNode())) {
          return "waiting "
              + age(e.since(), now)
              + kind(e)
              + (e.note() == null || e.note().isBlank() ? "" : ": " + e.note());
        }
      }
    }
    return "-";
  }

  /** Says which entries are the unhealthy drain's (the others are the remediation's). */
  private static String kind(BudgetStatus.Entry e) {
    return e.request().isDrain() ? " (unhealthy drain)" : "";
  }

  /** Where the node stands in the budget: holds a slot, waits (with why), or neither. */
  static String slot(Optional<BudgetStatus> budget, String k8sNode) {
    if (budget.isEmpty()) {
      return "not in the budget";
    }
    BudgetStatus b = budget.get();
    for (BudgetStatus.Entry e : b.holders()) {
      if (k8sNode.equals(e.request().k8sNode())) {
        return "holds a slot since " + Output.time(e.since());
      }
    }
    for (BudgetStatus.Entry e : b.waiting()) {
      if (k8sNode.equals(e.request().k8sNode())) {
        return "waiting for a slot since "
            + Output.time(e.since())
            + (e.note() == null || e.note().isBlank() ? "" : ": " + e.note());
      }
    }
    return "not in the budget";
  }
}
