package dev.tandem.e2e;

import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.NodeSummary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The end states a scenario must reach once its faults are over, read through Temporal and Slurm:
 *
 * <ol>
 *   <li><b>Every lifecycle finished.</b> The NodeSet has {@code replicas} nodes, each in phase
 *       {@code ready} with no problem and no pending operation, at the NodeSet's update revision.
 *   <li><b>No Tandem drain without a holder.</b> Every Slurm node of the NodeSet's pool that Slurm
 *       shows drained or down with a {@code tandem:<owner>:} reason belongs to a node whose
 *       workflow holds a drain of that owner; a Slurm node without a workflow carries none.
 * </ol>
 */
final class EndStates {
  private EndStates() {}

  /** What is wrong now (empty: all end states hold). */
  static List<String> problems(E2EStack e2e, String nodeSet, int replicas) {
    List<String> out = new ArrayList<>();
    NodeSetSnapshot s = e2e.nodeSetStatus(nodeSet);
    String rev = s.status().updateRevision();
    if (s.nodes().size() != replicas) {
      out.add(nodeSet + " has " + s.nodes().size() + " nodes, not " + replicas + ": " + s.nodes());
    }
    Map<String, NodeStatus> byPod = new HashMap<>();
    for (NodeSummary n : s.nodes()) {
      NodeStatus st = e2e.nodeStatus(n.pod());
      byPod.put(n.pod(), st);
      if (st.phase() != NodePhase.READY
          || st.problem() != null
          || !"none".equals(st.operation())
          || !rev.equals(st.revision())) {
        out.add(
            n.pod()
                + " not finished: "
                + st.phase().label()
                + ", operation "
                + st.operation()
                + ", revision "
                + st.revision()
                + " (want "
                + rev
                + "), problem "
                + st.problem());
      }
    }
    for (SlurmNode sn : e2e.slurm.listNodes(null).items()) {
      if (!sn.name().startsWith(nodeSet + "-")) {
        continue;
      }
      var reason = DrainReason.parse(sn.reason());
      if ((!sn.drainFlag() && !sn.down()) || reason.isEmpty()) {
        continue;
      }
      String owner = reason.get().cause().label();
      NodeStatus st = byPod.get(sn.name());
      if (st == null || !st.holds().containsKey(owner)) {
        out.add(
            "Slurm node "
                + sn.name()
                + " is "
                + sn.state()
                + sn.flags()
                + " with \""
                + sn.reason()
                + "\" but no workflow holds a "
                + owner
                + " drain"
                + (st == null ? " (it has no workflow)" : ": holds " + st.holds()));
      }
    }
    return out;
  }

  /** Waits (bounded) until {@link #problems} is empty, failing with what is still wrong. */
  static void await(E2EStack e2e, String nodeSet, int replicas, Duration limit) {
    Await.until(
        nodeSet + ": every lifecycle finished, no Tandem drain without a holder",
        limit,
        Duration.ofMillis(500),
        () -> problems(e2e, nodeSet, replicas),
        List::isEmpty);
  }
}
