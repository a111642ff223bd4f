package dev.tandem.e2e;

import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.NodeSummary;
import io.fabric8.kubernetes.api.model.Pod;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The end of a crash run, judged once the scenario is over and a worker runs again. Tandem gets a
 * bounded time to settle (a node may still wait for an activity the killed worker held), then every
 * unmet condition is a violation:
 *
 * <ol>
 *   <li>Every lifecycle finished: the NodeSet says {@code Ready=True} with {@code readyReplicas ==
 *       replicas == updatedReplicas} at one revision (the final one) for the latest generation.
 *   <li>Its workflow tracks exactly the remaining nodes, each {@code ready} at that revision with
 *       no hold, no pending operation and no problem.
 *   <li>Slurm serves the remaining nodes (no flag, no reason) and lists no removed one.
 *   <li>The removed nodes' workflows completed.
 *   <li>The pods are exactly the remaining nodes', running at the final revision.
 *   <li>No Slurm node of the NodeSet shows a {@code tandem:} reason that no hold of its node
 *       workflow explains (a Tandem drain left behind).
 * </ol>
 */
final class EndState {
  private final E2EStack e2e;
  private final ClusterView view;
  private final TemporalProbe temporal;
  private final String nodeSet;

  EndState(E2EStack e2e, TemporalProbe temporal, String nodeSet) {
    this.e2e = e2e;
    this.view = new ClusterView(e2e, nodeSet);
    this.temporal = temporal;
    this.nodeSet = nodeSet;
  }

  /** Waits up to {@code limit} for the end state; returns what is still wrong then. */
  List<String> check(List<String> remaining, List<String> removed, String rev, Duration limit) {
    try {
      Await.until(
          "the end state",
          limit,
          Duration.ofMillis(500),
          () -> problems(remaining, removed, rev),
          List::isEmpty);
      return List.of();
    } catch (AssertionError e) {
      return problems(remaining, removed, rev);
    }
  }

  List<String> problems(List<String> remaining, List<String> removed, String rev) {
    List<String> out = new ArrayList<>();
    try {
      nodeSetStatus(remaining.size(), rev, out);
      workflows(remaining, removed, rev, out);
      slurm(remaining, removed, out);
      pods(remaining, rev, out);
    } catch (RuntimeException e) {
      out.add("cannot read the end state: " + e);
    }
    return out;
  }

  private void nodeSetStatus(int replicas, String rev, List<String> out) {
    Map<?, ?> st = view.status();
    var r = e2e.nodeSet(nodeSet);
    long generation = r.getMetadata().getGeneration();
    if (!"True".equals(view.condition("Ready"))
        || view.statusInt("replicas") != replicas
        || view.statusInt("readyReplicas") != replicas
        || view.statusInt("updatedReplicas") != replicas
        || !rev.equals(view.statusText("currentRevision"))
        || !rev.equals(view.statusText("updateRevision"))
        || view.statusInt("observedGeneration") != generation) {
      out.add("NodeSet status (generation " + generation + "): " + st);
    }
  }

  private void workflows(
      List<String> remaining, List<String> removed, String rev, List<String> out) {
    NodeSetSnapshot s = temporal.nodeSet(nodeSet);
    List<String> tracked = s.nodes().stream().map(NodeSummary::pod).sorted().toList();
    if (!tracked.equals(remaining)) {
      out.add("the NodeSet workflow tracks " + tracked + ", not " + remaining);
    }
    for (String pod : remaining) {
      NodeStatus n = temporal.node(pod);
      if (n.phase() != NodePhase.READY
          || !rev.equals(n.revision())
          || !rev.equals(n.targetRevision())
          || !n.holds().isEmpty()
          || !"none".equals(n.operation())
          || n.problem() != null) {
        out.add(
            pod
                + ": "
                + n.phase().label()
                + " at "
                + n.revision()
                + " -> "
                + n.targetRevision()
                + ", holds "
                + n.holds()
                + ", operation "
                + n.operation()
                + ", problem "
                + n.problem());
      }
    }
    for (String pod : removed) {
      Optional<WorkflowExecutionStatus> x =
          temporal.execution(Names.nodeWorkflowId("default", pod));
      if (x.isEmpty() || x.get() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED) {
        out.add(
            "the workflow of removed node " + pod + " is " + x.map(Enum::name).orElse("absent"));
      }
    }
  }

  private void slurm(List<String> remaining, List<String> removed, List<String> out) {
    for (String pod : remaining) {
      if (!view.serving(pod)) {
        out.add("Slurm does not serve " + pod + ": " + view.node(pod));
      }
    }
    for (String pod : removed) {
      if (view.listed(pod)) {
        out.add("Slurm still lists removed node " + pod + ": " + view.node(pod));
      }
    }
    for (SlurmNode n : e2e.slurm.listNodes(null).items()) {
      if (!n.name().startsWith(nodeSet + "-")
          || n.reason() == null
          || !n.reason().startsWith("tandem:")) {
        continue;
      }
      NodeStatus s = temporal.node(n.name());
      if (!s.holds().containsValue(n.reason())) {
        out.add(
            n.name() + " shows Tandem's reason \"" + n.reason() + "\" but holds only " + s.holds());
      }
    }
  }

  private void pods(List<String> remaining, String rev, List<String> out) {
    List<Pod> pods = view.pods();
    TreeSet<String> names = new TreeSet<>();
    for (Pod p : pods) {
      names.add(p.getMetadata().getName());
      if (!ClusterView.running(p) || !rev.equals(ClusterView.revision(p))) {
        out.add(
            "pod "
                + p.getMetadata().getName()
                + " is "
                + (p.getStatus() == null ? "?" : p.getStatus().getPhase())
                + " at "
                + ClusterView.revision(p)
                + (p.getMetadata().getDeletionTimestamp() == null ? "" : ", being deleted"));
      }
    }
    if (!List.copyOf(names).equals(remaining)) {
      out.add("pods " + names + ", expected " + remaining);
    }
  }
}
