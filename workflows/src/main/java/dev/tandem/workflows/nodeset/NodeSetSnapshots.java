package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.NodeSummary;
import dev.tandem.workflows.model.TimelineEntry;
import dev.tandem.workflows.nodeset.NodeSetState.Entry;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What the NodeSet shows without deciding anything: the {@code status} query's answer, and the
 * signals it could not use. Neither wakes the loop, so neither changes a command.
 */
final class NodeSetSnapshots {
  private NodeSetSnapshots() {}

  /**
   * The {@code status} query: every tracked node as its last report shows it. While the watchers
   * say Slurm cannot be reached, a node's Slurm state reads {@code unreachable (was <state>)}: the
   * last state seen is not the state now.
   */
  static NodeSetSnapshot of(NodeSetRef ref, NodeSetState s, NodeSetStatusView current) {
    boolean slurmAway =
        NodeSetConditions.unreachable(ClusterHealth.SLURM, s, Workflow.currentTimeMillis()) != null;
    List<NodeSummary> list = new ArrayList<>();
    for (Entry e : s.nodes.values()) {
      NodeReport r = e.report;
      if (NodeSetPlanner.deleted(e)) {
        continue; // gone; pruned on the next pass
      }
      list.add(
          new NodeSummary(
              e.pod,
              e.ordinal,
              r == null ? NodePhase.PROVISIONING : r.phase(),
              NodeSetPlanner.revision(e),
              slurmState(r, slurmAway),
              r == null ? null : r.reason(),
              r == null ? null : r.k8sNode(),
              r == null ? null : r.problem()));
    }
    int desired = s.desired();
    return new NodeSetSnapshot(
        ref, s.deleting, desired, current, list, List.copyOf(s.rejectedSignals));
  }

  private static String slurmState(NodeReport r, boolean slurmAway) {
    String last = r == null ? "unknown" : r.slurmState();
    return slurmAway ? "unreachable (was " + last + ")" : last;
  }

  /**
   * Keeps a signal whose payload cannot be used (the latest few) for the status query; it is never
   * acted on.
   */
  static void rejected(NodeSetState s, String detail) {
    s.rejectedSignals.add(
        new TimelineEntry(
            Instant.ofEpochMilli(Workflow.currentTimeMillis()), null, "signal-rejected", detail));
    while (s.rejectedSignals.size() > NodeSetState.MAX_REJECTED_SIGNALS) {
      s.rejectedSignals.remove(0);
    }
  }
}
