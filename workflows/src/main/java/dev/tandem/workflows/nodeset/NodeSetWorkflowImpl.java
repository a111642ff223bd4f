package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.activities.KubeActivities;
import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.NodeSummary;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.TimelineEntry;
import dev.tandem.workflows.model.UpdateCommand;
import dev.tandem.workflows.node.NodeLifecycleInput;
import dev.tandem.workflows.nodeset.NodeSetState.Entry;
import dev.tandem.workflows.support.ActivityStubs;
import dev.tandem.workflows.support.SearchAttributes;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;

/**
 * Keeps a NodeSet's nodes equal to its spec.
 *
 * <ol>
 *   <li>Validate: every spec that arrives is checked; an invalid one is reported as InvalidSpec and
 *       the last valid spec stays in force.
 *   <li>Adopt (once): pods that already exist get their node workflow (started, or found running),
 *       so a lost NodeSet history never orphans a node.
 *   <li>Scale: start one node workflow per missing node on the lowest free ordinal; on scale-down
 *       send {@code delete} to victims (see {@link NodeSetPlanner}). Victims drain first and go
 *       only when no job runs, unless the scale-down policy's timeout says Force.
 *   <li>Roll: nodes not at the spec's revision get {@code update}, at most maxUnavailable out of
 *       service at once (RollingUpdate), or a deferred update used when their pod is next recreated
 *       (OnDelete).
 *   <li>Report: compute the status from the nodes' reports and write it when it changed.
 *   <li>Wait for a signal (spec, report, delete) or the resync timer; continue-as-new when the
 *       history is long.
 * </ol>
 *
 * <p>When the custom resource is deleted, every node is deleted (drained first), then Tandem's
 * finalizer is removed and the workflow ends.
 */
public class NodeSetWorkflowImpl implements NodeSetWorkflow {
  private static final Logger log = Workflow.getLogger(NodeSetWorkflowImpl.class);

  /** A node that has not reported for this many resync periods is asked to; gone → restarted. */
  static final int SILENT_PERIODS = 30;

  private final NodeSetInput input;
  private final NodeSetState s;
  private boolean dirty;
  private boolean writeFailed;

  @WorkflowInit
  public NodeSetWorkflowImpl(NodeSetInput in) {
    this.input = in;
    if (in.state() != null) {
      this.s = in.state();
    } else {
      this.s = new NodeSetState();
      accept(in.spec());
    }
  }

  @Override
  public void run(NodeSetInput in) {
    SearchAttributes sa = new SearchAttributes(in.tuning().searchAttributes());
    sa.set(SearchAttributes.NODESET, in.ref().toString());
    while (true) {
      dirty = false;
      if (!s.adopted && (s.spec != null || s.deleting)) {
        adopt();
      }
      if (s.deleting) {
        if (deleteAll() && release()) {
          sa.set(SearchAttributes.PHASE, "deleted");
          return;
        }
      } else if (s.spec != null) {
        s.nodes.values().removeIf(NodeSetPlanner::deleted);
        restartMissing();
        scale();
        roll();
      }
      NodeSetStatusView st = writeStatus();
      sa.set(SearchAttributes.PHASE, phase(st));
      Workflow.setCurrentDetails(details(st));
      long wait = writeFailed ? in.tuning().pollSeconds() : in.tuning().resyncSeconds();
      Workflow.await(Duration.ofSeconds(wait), () -> dirty);
      maybeContinueAsNew();
    }
  }

  // ---- signals ----

  @Override
  public void specChanged(NodeSetSpecView spec) {
    if (spec == null || spec.rejected() != null) {
      reject(Names.SIGNAL_SPEC_CHANGED, spec == null ? null : spec.rejected());
      return;
    }
    if (s.latest != null && spec.generation() < s.latest.generation()) {
      return; // a late signal: a newer generation was already seen
    }
    accept(spec);
    dirty = true;
  }

  @Override
  public void delete(NodeCommand command) {
    if (command == null || !command.valid()) {
      reject(Names.SIGNAL_DELETE, command == null ? null : command.problem());
      return;
    }
    s.deleting = true;
    s.deleteReason =
        command != null && command.reason() != null ? command.reason() : "NodeSet deleted";
    dirty = true;
  }

  @Override
  public void nodeReported(NodeReport r) {
    if (r == null || r.rejected() != null || r.pod() == null) {
      reject(
          Names.SIGNAL_NODE_REPORTED,
          r == null ? null : r.rejected() != null ? r.rejected() : "\"pod\" is required");
      return;
    }
    Entry e = s.nodes.get(r.ordinal());
    if (e == null || !r.pod().equals(e.pod)) {
      if (e != null || r.phase() == dev.tandem.workflows.model.NodePhase.DELETED) {
        return; // a stranger, or the end of a node we no longer track
      }
      e = entry(r.ordinal(), r.revision());
      e.started = true;
    }
    if (e.report == null || r.seq() > e.report.seq()) {
      e.report = r;
      e.lastHeardMillis = Workflow.currentTimeMillis();
      dirty = true;
    }
  }

  @Override
  public void clusterHealth(ClusterHealth h) {
    if (h == null || h.rejected() != null || h.component() == null) {
      reject(
          Names.SIGNAL_CLUSTER_HEALTH,
          h == null ? null : h.rejected() != null ? h.rejected() : "\"component\" is required");
      return;
    }
    ClusterHealth before = s.health.get(h.component());
    if (before != null
        && before.observedAt() != null
        && h.observedAt() != null
        && h.observedAt().isBefore(before.observedAt())) {
      return; // late
    }
    s.health.put(h.component(), h);
    dirty = true;
  }

  @Override
  public void resync() {
    dirty = true;
  }

  @Override
  public NodeSetSnapshot status() {
    List<NodeSummary> nodes = new ArrayList<>();
    for (Entry e : s.nodes.values()) {
      NodeReport r = e.report;
      if (NodeSetPlanner.deleted(e)) {
        continue; // gone; pruned on the next pass
      }
      nodes.add(
          new NodeSummary(
              e.pod,
              e.ordinal,
              r == null ? dev.tandem.workflows.model.NodePhase.PROVISIONING : r.phase(),
              NodeSetPlanner.revision(e),
              r == null ? "unknown" : r.slurmState(),
              r == null ? null : r.reason(),
              r == null ? null : r.k8sNode(),
              r == null ? null : r.problem()));
    }
    int desired = s.spec == null ? 0 : s.spec.replicas();
    return new NodeSetSnapshot(
        input.ref(), s.deleting, desired, current(), nodes, List.copyOf(s.rejectedSignals));
  }

  /**
   * A signal whose payload cannot be used: logged and kept (the latest few) for the status query,
   * never acted on. It does not wake the loop, so it changes no decision.
   */
  private void reject(String signal, String why) {
    String detail = signal + ": " + (why == null ? "empty payload" : why);
    log.warn("NodeSet {}: signal rejected: {}", input.ref(), detail);
    s.rejectedSignals.add(
        new TimelineEntry(
            Instant.ofEpochMilli(Workflow.currentTimeMillis()), null, "signal-rejected", detail));
    while (s.rejectedSignals.size() > NodeSetState.MAX_REJECTED_SIGNALS) {
      s.rejectedSignals.remove(0);
    }
  }

  // ---- steps ----

  private void accept(NodeSetSpecView spec) {
    s.latest = spec;
    List<String> problems = NodeSetSpecValidator.validate(spec);
    if (problems.isEmpty()) {
      s.spec = spec;
      s.invalidMessage = null;
    } else {
      s.invalidMessage = String.join("; ", problems);
      log.warn("NodeSet {} spec is invalid: {}", input.ref(), s.invalidMessage);
    }
  }

  private void adopt() {
    List<PodView> pods;
    try {
      pods =
          kube("list pods of " + input.ref()).listPods(input.ref().namespace(), input.ref().name());
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

  /** Starts node workflows for entries without one (new, adopted, or found gone). */
  private void restartMissing() {
    List<NodeMessenger.Start> starts = new ArrayList<>();
    long now = Workflow.currentTimeMillis();
    long silentMillis = input.tuning().resyncSeconds() * 1000L * SILENT_PERIODS;
    for (Entry e : s.nodes.values()) {
      if (e.started && now - e.lastHeardMillis > silentMillis) {
        e.lastHeardMillis = now;
        e.started = NodeMessenger.resync(ref(e));
      }
      if (!e.started) {
        e.deleteSent = false;
        e.updateSentFor = null;
        e.lastHeardMillis = now;
        starts.add(NodeMessenger.start(nodeInput(e), input.tuning().searchAttributes()));
      }
    }
    for (NodeRef r : NodeMessenger.awaitStarts(starts)) {
      s.nodes.get(r.ordinal()).started = true;
    }
  }

  private void scale() {
    List<Entry> active = NodeSetPlanner.active(s.nodes);
    int desired = s.spec.replicas();
    if (active.size() < desired) {
      for (int ordinal : NodeSetPlanner.freeOrdinals(s.nodes, desired - active.size())) {
        entry(ordinal, s.spec.template().revision());
      }
      restartMissing();
    } else if (active.size() > desired) {
      String why = "scale down from " + active.size() + " to " + desired;
      for (Entry e : NodeSetPlanner.victims(active, desired)) {
        NodeCommand c =
            NodeCommand.of(DrainCause.SCALE_DOWN, why).withPolicy(s.spec.scaleDownDrain());
        e.deleteSent = NodeMessenger.delete(ref(e), c);
        e.started = e.deleteSent;
      }
    }
  }

  private void roll() {
    List<Entry> active = NodeSetPlanner.active(s.nodes);
    String rev = s.spec.template().revision();
    boolean onDelete = s.spec.updateStrategy().onDelete();
    List<Entry> targets;
    if (onDelete) {
      targets = NodeSetPlanner.deferredUpdates(active, rev);
    } else {
      int max =
          NodeSetSpecValidator.resolveMaxUnavailable(
              s.spec.updateStrategy().maxUnavailable(), s.spec.replicas());
      targets = NodeSetPlanner.rollingUpdates(active, rev, max);
    }
    UpdateCommand c = new UpdateCommand(s.spec.template(), !onDelete, s.spec.updateDrain());
    for (Entry e : targets) {
      if (NodeMessenger.update(ref(e), c)) {
        e.updateSentFor = rev;
        e.updateSentImmediate = !onDelete;
      } else {
        e.started = false;
      }
    }
  }

  /** Sends delete to every node; true once none is left. */
  private boolean deleteAll() {
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

  /** Writes the final status and lifts the finalizer; false (retry later) if Kubernetes failed. */
  private boolean release() {
    writeStatus();
    try {
      kube("release NodeSet " + input.ref()).releaseNodeSet(input.ref());
      return true;
    } catch (ActivityFailure e) {
      log.warn("cannot release {}: {}", input.ref(), e.getMessage());
      writeFailed = true;
      return false;
    }
  }

  private NodeSetStatusView current() {
    return NodeSetStatusCalculator.compute(
        s,
        Names.PREFIX + "nodeset=" + input.ref().name(),
        Instant.ofEpochMilli(Workflow.currentTimeMillis()));
  }

  private NodeSetStatusView writeStatus() {
    NodeSetStatusView st = current();
    if (NodeSetStatusCalculator.same(st, s.written)) {
      writeFailed = false;
      return s.written;
    }
    try {
      kube("write status of " + input.ref()).writeNodeSetStatus(input.ref(), st);
      s.written = st;
      s.conditions = new ArrayList<>(st.conditions());
      writeFailed = false;
    } catch (ActivityFailure e) {
      log.warn("cannot write status of {}: {}", input.ref(), e.getMessage());
      writeFailed = true;
    }
    return st;
  }

  // ---- helpers ----

  private Entry entry(int ordinal, String revision) {
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
        s.spec != null ? s.spec.template() : new PodTemplate(e.startRevision, null, null);
    String uid = s.spec != null ? s.spec.uid() : s.latest == null ? null : s.latest.uid();
    return new NodeLifecycleInput(
        ref(e), t, uid, s.spec == null ? null : s.spec.scaleDownDrain(), input.tuning(), null);
  }

  private static KubeActivities kube(String summary) {
    return ActivityStubs.kube(summary);
  }

  private String phase(NodeSetStatusView st) {
    if (s.deleting) {
      return "deleting";
    }
    if (s.invalidMessage != null) {
      return "invalid";
    }
    Condition degraded = st.condition(Condition.DEGRADED);
    if (degraded != null && degraded.statusTrue()) {
      return "degraded";
    }
    Condition progressing = st.condition(Condition.PROGRESSING);
    return progressing != null && progressing.statusTrue() ? "progressing" : "ready";
  }

  private String details(NodeSetStatusView st) {
    return phase(st)
        + ": "
        + st.readyReplicas()
        + "/"
        + (s.spec == null ? 0 : s.spec.replicas())
        + " ready, "
        + st.updatedReplicas()
        + " at revision "
        + st.updateRevision();
  }

  private void maybeContinueAsNew() {
    long events = Workflow.getInfo().getHistoryLength();
    if (events < input.tuning().maxHistoryEvents()
        && !Workflow.getInfo().isContinueAsNewSuggested()) {
      return;
    }
    NodeSetWorkflow next = Workflow.newContinueAsNewStub(NodeSetWorkflow.class);
    next.run(new NodeSetInput(input.ref(), s.latest, input.tuning(), s));
  }
}
