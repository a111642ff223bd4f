package dev.tandem.workflows.remediation;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.HeldDrains;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.remediation.BudgetStatus.Entry;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;

/**
 * The budget's automatic drains ({@link SlotRequest#DRAIN}): the budget workflow alone sets and
 * lifts the {@code k8s-unhealthy} drain of a Slurm node, so no two senders can race and a drain
 * beyond the budget is never sent. Also tells each NodeSet which of its nodes are held back.
 *
 * <ol>
 *   <li>Grant: {@code drain} (owner {@code k8s-unhealthy}, the request's reason) to every Slurm
 *       node of the request. A node workflow that does not run is skipped (its pod is gone; the
 *       watcher's next request names the pods there are).
 *   <li>Lift ({@link #lift}): {@code undrain} of that owner, after the request was released or
 *       dropped a Slurm node, to the Slurm nodes no other granted drain still names (a pod that
 *       moved to another unhealthy node stays drained).
 *   <li>Report: a NodeSet whose held drains changed gets {@code drainsHeld} with them (an empty
 *       list when none is held any more); the gauge {@code tandem_automatic_drains_held} counts the
 *       held Kubernetes nodes. A new run reports every NodeSet with held drains again.
 * </ol>
 */
final class BudgetDrains {
  private static final Logger log = Workflow.getLogger(BudgetDrains.class);

  static final String HELD_GAUGE = "tandem_automatic_drains_held";

  /** At most this many held nodes are named with their trouble in one message. */
  static final int MAX_NAMED = 3;

  /** Slurm nodes whose {@code k8s-unhealthy} drain may have to be lifted. */
  private final Set<NodeRef> toLift = new LinkedHashSet<>();

  /** What each NodeSet was last told; a NodeSet told "none" is removed. */
  private final Map<String, HeldDrains> reported = new HashMap<>();

  /** Sets the drain of a granted request. */
  void grant(SlotRequest r) {
    NodeCommand c = NodeCommand.of(DrainCause.K8S_UNHEALTHY, r.cause());
    for (NodeRef n : r.nodes()) {
      signal(n, Names.SIGNAL_DRAIN, c);
    }
  }

  /** These Slurm nodes' drains are lifted on the next {@link #lift}, unless still granted. */
  void liftLater(List<NodeRef> nodes) {
    toLift.addAll(nodes);
  }

  /** Lifts what {@link #liftLater} collected, but not on Slurm nodes a holder still drains. */
  void lift(List<Entry> holders) {
    if (toLift.isEmpty()) {
      return;
    }
    Set<NodeRef> still = new HashSet<>();
    for (Entry e : holders) {
      if (e.request().isDrain()) {
        still.addAll(e.request().nodes());
      }
    }
    NodeCommand c = NodeCommand.of(DrainCause.K8S_UNHEALTHY, "healthy again, or no longer there");
    // Taken out first: a release that arrives while a signal below is sent adds to the set.
    List<NodeRef> now = new ArrayList<>(toLift);
    toLift.clear();
    for (NodeRef n : now) {
      if (!still.contains(n)) {
        signal(n, Names.SIGNAL_UNDRAIN, c);
      }
    }
  }

  /** Tells the NodeSets whose held drains changed, and sets the gauge. */
  void report(BudgetLine line) {
    Map<String, List<Entry>> held = line.heldDrains();
    Set<String> nodes = new HashSet<>();
    Set<String> sets = new java.util.TreeSet<>(reported.keySet());
    sets.addAll(held.keySet());
    for (String ns : sets) {
      List<Entry> h = held.getOrDefault(ns, List.of());
      HeldDrains now = held(ns, h);
      h.forEach(e -> nodes.add(e.request().k8sNode()));
      if (Objects.equals(now, reported.get(ns))) {
        continue;
      }
      tell(ns, now); // a NodeSet workflow that does not run has nothing to show it on
      if (h.isEmpty()) {
        reported.remove(ns);
      } else {
        reported.put(ns, now);
      }
    }
    Workflow.getMetricsScope().gauge(HELD_GAUGE).update(nodes.size());
  }

  static HeldDrains held(String nodeSet, List<Entry> held) {
    if (held.isEmpty()) {
      return HeldDrains.none();
    }
    List<String> names = new ArrayList<>();
    List<String> why = new ArrayList<>();
    for (Entry e : held) {
      names.add(e.request().k8sNode());
      if (why.size() < MAX_NAMED) {
        why.add(e.request().k8sNode() + " (" + e.request().cause() + ")");
      }
    }
    if (names.size() > MAX_NAMED) {
      why.add("and " + (names.size() - MAX_NAMED) + " more");
    }
    String full = held.get(0).note();
    return new HeldDrains(
        names,
        names.size()
            + (names.size() == 1 ? " unhealthy node" : " unhealthy nodes")
            + " kept in service, the budget is spent ("
            + full
            + "; "
            + BudgetLine.settingOf(full)
            + "): "
            + String.join(", ", why));
  }

  private void tell(String nodeSet, HeldDrains h) {
    int slash = nodeSet.indexOf('/');
    String id = Names.nodeSetWorkflowId(nodeSet.substring(0, slash), nodeSet.substring(slash + 1));
    try {
      Workflow.newUntypedExternalWorkflowStub(id).signal(Names.SIGNAL_DRAINS_HELD, h);
    } catch (SignalExternalWorkflowException | ApplicationFailure e) {
      log.info("NodeSet workflow {} is not running: {}", id, e.getMessage());
    }
  }

  private static void signal(NodeRef n, String signal, NodeCommand c) {
    try {
      Workflow.newUntypedExternalWorkflowStub(n.workflowId()).signal(signal, c);
    } catch (SignalExternalWorkflowException | ApplicationFailure e) {
      log.info("{} to {} not delivered (not running): {}", signal, n.workflowId(), e.getMessage());
    }
  }
}
