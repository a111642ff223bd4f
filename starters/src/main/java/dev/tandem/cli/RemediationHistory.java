package dev.tandem.cli;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.remediation.RemediationState;
import java.io.PrintWriter;

/**
 * {@code tandem history} of a Kubernetes node's remediation: every line of {@code
 * remediation/<k8s-node>}'s timeline (triggers, each step entered and left, rechecks, the outcome)
 * with its time, oldest first. Chosen for {@code remediation/NAME}, and for a NAME that is no
 * Tandem node (pod) but has a remediation.
 */
final class RemediationHistory {
  private RemediationHistory() {}

  static int print(TemporalSession session, String k8sNode, PrintWriter out, Output.Format f) {
    session.requireWorker();
    RemediationState s =
        RemediationLookup.state(session, k8sNode)
            .orElseThrow(
                () ->
                    new CliException(
                        "no remediation of Kubernetes node "
                            + k8sNode
                            + " (workflow "
                            + Names.remediationWorkflowId(k8sNode)
                            + " never ran)"));
    Output.history(out, f, header(s), "STEP", s.timeline());
    return 0;
  }

  static String header(RemediationState s) {
    StringBuilder b =
        new StringBuilder(Names.remediationWorkflowId(s.k8sNode()))
            .append(": ")
            .append(RemediationLookup.step(s))
            .append(" since ")
            .append(Output.time(s.stepSince()))
            .append(", started ")
            .append(Output.time(s.startedAt()));
    if (s.cause() != null) {
      b.append(", cause ").append(s.cause());
    }
    if (s.outcome() != null) {
      b.append("; outcome: ").append(s.outcome());
    }
    return b.toString();
  }
}
