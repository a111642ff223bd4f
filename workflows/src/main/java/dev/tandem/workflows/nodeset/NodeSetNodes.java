package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.UpdateCommand;
import dev.tandem.workflows.model.UpdateStrategy;
import dev.tandem.workflows.node.NodeLifecycleInput;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.nodeset.NodeSetState.Entry;
import dev.tandem.workflows.support.ActivityStubs;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;

/**
 * The NodeSet workflow's hands on its nodes: adopt the pods that exist, start node workflows, send
 * them {@code delete} and {@code update}. What to do comes from {@link NodeSetPlanner}; this class
 * only carries it out and records it in {@link NodeSetState}.
 */
final class NodeSetNodes {
  private static final Logger log = Workflow.getLogger(NodeSetNodes.class);

  /** A node that has not reported for this many resync periods is asked to; gone → restarted. */
  static final int SILENT_PERIODS = 30;

  /** Child workflow starts issued in one workflow task ({@link #restartMissing()}). */
  static final int STARTS_PER_TASK = 200;

  private final NodeSetInput input;
  private final NodeSetState s;

  NodeSetNodes(NodeSetInput input, NodeSetState s) {
    this.input = input;
    this.s = s;
  }

  /** Lists the pods once and tracks each of ours, so a lost history never orphans a node. */
  void adopt() {
    List<PodView> pods;
    try {
      pods =
          ActivityStubs.kube("list pods of " + input.ref())
              .listPods(input.ref().namespace(), input.ref().name());
    } catch (ActivityFailure e) {
      log.warn("cannot list pods of {}: {}", input.ref(), e.getMessage());
      return; // try again on the next pass
    }
    String prefix = input.ref().name() + "-";
    for (PodView p : pods) {
      if (p.name() == null || !p.name().startsWith(prefix)) {
        continue;
      }
      try {
        int ordinal = Integer.parseInt(p.name().substring(prefix.length()));
        if (ordinal >= 0 && !s.nodes.containsKey(ordinal)) {
          entry(ordinal, p.revision());
        }
      } catch (NumberFormatException ignored) {
        // not one of ours: NodeSet pods are <name>-<ordinal>
      }
    }
    restartMissing();
    s.adopted = true;
  }

  /**
   * Starts node workflows for entries without one (new, adopted, or found gone).
   *
   * <ol>
   *   <li>In ordinal order: a node silent for {@link #SILENT_PERIODS} resync periods is asked to
   *       report; one whose workflow is gone, or never started, is started.
   *   <li>Starts go out in batches of at most {@link #STARTS_PER_TASK}, each awaited before the
   *       next: every start is a command of the workflow task that issues it, and a task's commands
   *       travel in one gRPC message (4 MiB by default, on Temporal's server as on the test
   *       server). A NodeSet of 5,000 starting all its nodes in one task would have it refused
   *       (RESOURCE_EXHAUSTED).
   *   <li>The entries are walked from a copy: signal handlers may add one while a batch is awaited.
   *   <li>A start refused because a workflow of the node's id is already running is not proof that
   *       the node runs: the running one may be an earlier node of the same name (a NodeSet deleted
   *       and created again, or scaled down and up) between its last report and its end, and it
   *       will never report again. So it is asked to report, and probed again after two poll
   *       intervals, then after twice that, until it reports (it is the node: probing stops), is
   *       found gone (it is started now), or the wait between probes passes one resync period (the
   *       silence rule of step 1 takes over), so a leftover holds the ordinal for a few poll
   *       intervals, not 30 resync periods.
   * </ol>
   */
  void restartMissing() {
    List<NodeMessenger.Start> starts = new ArrayList<>();
    long now = Workflow.currentTimeMillis();
    long silentMillis = input.tuning().resyncSeconds() * 1000L * SILENT_PERIODS;
    for (Entry e : new ArrayList<>(s.nodes.values())) {
      if (StartProbes.due(e, now)) {
        e.started = StartProbes.probe(e, ref(e), input.tuning(), now);
      }
      if (e.started && now - e.lastHeardMillis > silentMillis) {
        e.lastHeardMillis = now;
        e.started = NodeMessenger.resync(ref(e));
      }
      if (!e.started) {
        if (starts.size() >= STARTS_PER_TASK) {
          markStarted(starts);
          starts = new ArrayList<>();
        }
        e.deleteSent = false;
        e.updateSentFor = null;
        e.lastHeardMillis = now;
        starts.add(NodeMessenger.start(nodeInput(e), input.tuning().searchAttributes()));
      }
    }
    markStarted(starts);
  }

  private void markStarted(List<NodeMessenger.Start> starts) {
    for (NodeMessenger.Started st : NodeMessenger.awaitStarts(starts)) {
      Entry e = s.nodes.get(st.ref().ordinal());
      if (e == null) {
        continue;
      }
      e.started = true;
      if (st.found() && e.report == null) {
        StartProbes.begin(e, input.tuning(), Workflow.currentTimeMillis());
      }
    }
  }

  /** Starts missing nodes on the lowest free ordinals, or sends delete to the victims. */
  void scale() {
    List<Entry> active = NodeSetPlanner.active(s.nodes);
    int desired = s.desired();
    if (active.size() < desired) {
      PodTemplate t = PodRejection.rolloutTemplate(s);
      if (t == null) {
        return; // the spec's pod is refused and no earlier revision ran: wait for a new spec
      }
      for (int ordinal : NodeSetPlanner.freeOrdinals(s.nodes, desired - active.size())) {
        entry(ordinal, t.revision());
      }
      restartMissing();
    } else if (active.size() > desired) {
      String why = "scale down from " + active.size() + " to " + desired;
      NodeCommand c =
          NodeCommand.of(DrainCause.SCALE_DOWN, why).withPolicy(s.spec.scaleDownDrain());
      signal(
          NodeSetPlanner.victims(active, desired, s.auto.idleSinceMillis),
          w -> w.delete(c),
          (e, sent) -> {
            e.deleteSent = sent;
            e.started = sent;
          });
    }
  }

  /** Sends update to the nodes the update strategy allows now. */
  void roll() {
    List<Entry> active = NodeSetPlanner.active(s.nodes);
    PodTemplate template = PodRejection.rolloutTemplate(s);
    if (template == null) {
      return; // the spec's pod is refused and no earlier revision ran: nothing to roll to
    }
    String rev = template.revision();
    UpdateStrategy strategy = s.spec.updateStrategy();
    boolean onDelete = strategy.onDelete();
    List<Entry> targets;
    Map<String, String> domains = Map.of();
    if (onDelete) {
      targets = NodeSetPlanner.deferredUpdates(active, rev);
    } else if (strategy.byDomain()) {
      TopologyRollout.Plan plan = planByDomain(active, rev, strategy);
      if (plan == null) {
        return; // the labels could not be read: take nothing this pass (fail closed)
      }
      s.rollDomain = plan.domain();
      targets = plan.updates();
      domains = plan.domains();
    } else {
      int max = NodeSetSpecValidator.resolveMaxUnavailable(strategy.maxUnavailable(), s.desired());
      targets = NodeSetPlanner.rollingUpdates(active, rev, max);
    }
    UpdateCommand c = new UpdateCommand(template, !onDelete, s.spec.updateDrain());
    Map<String, String> domainOf = domains;
    signal(
        targets,
        w -> w.update(c),
        (e, sent) -> {
          if (sent) {
            e.updateSentFor = rev;
            e.updateSentImmediate = !onDelete;
            e.rollDomain = domainOf.get(e.pod);
          } else {
            e.started = false;
          }
        });
  }

  /**
   * The topology-aware plan ({@link TopologyRollout}), or null when the node labels cannot be read.
   * Reads the labels only while the rollout has something to do.
   */
  private TopologyRollout.Plan planByDomain(
      List<Entry> active, String rev, UpdateStrategy strategy) {
    if (!TopologyRollout.pending(active, rev)) {
      s.rollDomain = null;
      return new TopologyRollout.Plan(null, List.of(), Map.of());
    }
    Map<String, String> labels;
    List<String> k8sNodes = TopologyRollout.k8sNodes(active);
    try {
      labels =
          k8sNodes.isEmpty()
              ? Map.of()
              : ActivityStubs.kube("read " + strategy.topologyKey() + " of the pods' nodes")
                  .nodeLabelValues(strategy.topologyKey(), k8sNodes);
    } catch (ActivityFailure e) {
      log.warn("cannot read topology labels for {}: {}", input.ref(), e.getMessage());
      return null;
    }
    return TopologyRollout.plan(
        active,
        rev,
        strategy.maxUnavailable(),
        strategy.idleFirst(),
        labels == null ? Map.of() : labels,
        s.rollDomain);
  }

  /** Sends delete to every node; true once none is left. */
  boolean deleteAll() {
    s.nodes.values().removeIf(NodeSetPlanner::deleted);
    restartMissing();
    for (Entry e : s.nodes.values()) {
      if (!e.deleteSent && e.started) {
        NodeCommand c = NodeCommand.of(DrainCause.SCALE_DOWN, s.deleteReason);
        if (s.spec != null) {
          c = c.withPolicy(s.spec.scaleDownDrain());
        }
        e.deleteSent = NodeMessenger.delete(ref(e), c);
        e.started = e.deleteSent;
      }
    }
    return s.nodes.isEmpty();
  }

  /**
   * Sends {@code f} to each target's node workflow and hands {@code then} each target with whether
   * its workflow was there. The targets are signalled together, in one workflow task ({@link
   * NodeMessenger#sendAll}).
   */
  private void signal(
      List<Entry> targets, Consumer<NodeLifecycleWorkflow> f, BiConsumer<Entry, Boolean> then) {
    List<NodeRef> refs = new ArrayList<>();
    targets.forEach(e -> refs.add(ref(e)));
    List<Boolean> sent = NodeMessenger.sendAll(refs, f);
    for (int i = 0; i < targets.size(); i++) {
      then.accept(targets.get(i), sent.get(i));
    }
  }

  /** Tracks a new node (not started yet). */
  Entry entry(int ordinal, String revision) {
    Entry e = new Entry();
    e.ordinal = ordinal;
    e.pod = Names.podName(input.ref().name(), ordinal);
    e.startRevision = revision;
    s.nodes.put(ordinal, e);
    return e;
  }

  private NodeRef ref(Entry e) {
    return new NodeRef(input.ref().namespace(), input.ref().name(), e.pod, e.ordinal);
  }

  private NodeLifecycleInput nodeInput(Entry e) {
    PodTemplate t =
        s.spec == null
            ? new PodTemplate(e.startRevision, null, null)
            : java.util.Objects.requireNonNullElse(
                PodRejection.rolloutTemplate(s), s.spec.template());
    String uid = s.spec != null ? s.spec.uid() : s.latest == null ? null : s.latest.uid();
    return new NodeLifecycleInput(
        ref(e), t, uid, s.spec == null ? null : s.spec.scaleDownDrain(), input.tuning(), null);
  }
}
