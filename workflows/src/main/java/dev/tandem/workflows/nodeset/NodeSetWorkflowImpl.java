package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.HeldDrains;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.model.NodeSetDemand;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.nodeset.NodeSetState.Entry;
import dev.tandem.workflows.support.SearchAttributes;
import dev.tandem.workflows.support.SignalInbox;
import dev.tandem.workflows.support.WaitTimers;
import io.temporal.common.VersioningBehavior;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import io.temporal.workflow.WorkflowVersioningBehavior;
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
 *       service at once (RollingUpdate; a node an administrator drained, or that Slurm shows down
 *       or not responding, is out of service), or a deferred update used when their pod is next
 *       recreated (OnDelete).
 *   <li>Report: compute the status from the nodes' reports, the watchers' {@code clusterHealth}
 *       reports (SlurmReachable, KubernetesReachable) and the budget's {@code drainsHeld}
 *       (AutomaticDrainsHeld, with an event when it changes: {@link MassFault}) and write it when
 *       it changed, without waiting for the write ({@link NodeSetStatusWriter}). The {@code status}
 *       query computes it afresh, so it shows even when the write fails.
 *   <li>Wait for a signal (spec, report, delete, health) or the resync timer, or until a health
 *       report goes stale; continue-as-new when the history is long (while nodes are rolled or
 *       started, not before it is twice as long: {@link ContinueAsNewTiming}).
 * </ol>
 *
 * <p>When the custom resource is deleted, every node is deleted (drained first), then Tandem's
 * finalizer is removed and the workflow ends. A custom resource created again under the same name
 * in the meantime (its spec has another uid) gets a run of its own by continue-as-new, from a clean
 * state: it can exist only once the finalizer is gone, so its spec reaches this run while it ends.
 */
public class NodeSetWorkflowImpl implements NodeSetRun {
  private static final Logger log = Workflow.getLogger(NodeSetWorkflowImpl.class);

  private final NodeSetInput input;
  private final NodeSetState s;
  private final NodeSetNodes nodes;
  private final NodeSetStatusWriter status;
  private final NodeSetAutoscale autoscale;
  private boolean dirty;

  @WorkflowInit
  public NodeSetWorkflowImpl(NodeSetInput in) {
    this.input = in;
    if (in.state() != null) {
      this.s = in.state();
    } else {
      this.s = new NodeSetState();
      accept(in.spec());
    }
    this.nodes = new NodeSetNodes(in, s);
    this.status = new NodeSetStatusWriter(in, s, () -> dirty = true);
    this.autoscale = new NodeSetAutoscale(in.ref(), s);
    SignalInbox.open(NodeSetWorkflow.class, this, r -> NodeSetSnapshots.rejected(s, r));
  }

  @Override
  // Auto-upgrade: moves to the current build; decision changes after a release get a
  // Workflow.getVersion patch (docs/upgrading.md).
  @WorkflowVersioningBehavior(VersioningBehavior.AUTO_UPGRADE)
  public void run(NodeSetInput in) {
    WaitTimers waits = new WaitTimers();
    SearchAttributes sa = new SearchAttributes(in.tuning().searchAttributes());
    sa.set(SearchAttributes.NODESET, in.ref().toString());
    while (true) {
      dirty = false;
      if (!s.adopted && (s.spec != null || s.deleting)) {
        nodes.adopt();
      }
      if (s.deleting) {
        if (nodes.deleteAll() && status.release()) {
          sa.set(SearchAttributes.PHASE, "deleted");
          if (s.successor != null) {
            // The NodeSet created again under this name: its own run, from a clean state.
            Workflow.newContinueAsNewStub(NodeSetWorkflow.class)
                .run(new NodeSetInput(in.ref(), s.successor, in.tuning(), null));
          }
          return;
        }
      } else if (s.spec != null) {
        s.nodes.values().removeIf(NodeSetPlanner::deleted);
        PodRejection.noteGood(s);
        nodes.restartMissing();
        autoscale.step();
        nodes.scale();
        nodes.roll();
      }
      MassFault.announce(in.ref(), s);
      NodeSetStatusView st = status.write();
      sa.set(SearchAttributes.PHASE, status.phase(st));
      Workflow.setCurrentDetails(status.details(st));
      waits.await(NodeSetWaits.next(s, input.tuning(), status.writeFailed), () -> dirty);
      int desired = s.desired();
      maybeContinueAsNew(ContinueAsNewTiming.busy(st, desired));
    }
  }

  // ---- signals (SignalInbox: only usable payloads get here; a rejection wakes nothing) ----

  public void specChanged(NodeSetSpecView spec) {
    if (s.deleting && anotherResource(spec)) {
      if (s.successor == null || spec.generation() >= s.successor.generation()) {
        s.successor = spec; // not this NodeSet's: the next run's
      }
      dirty = true;
      return;
    }
    if (s.latest != null && spec.generation() < s.latest.generation()) {
      return; // a late signal: a newer generation was already seen
    }
    accept(spec);
    dirty = true;
  }

  public void delete(NodeCommand command) {
    s.deleting = true;
    s.deleteReason = command.reason() != null ? command.reason() : "NodeSet deleted";
    dirty = true;
  }

  public void nodeReported(NodeReport r) {
    Entry e = s.nodes.get(r.ordinal());
    if (e == null || !r.pod().equals(e.pod)) {
      if (e != null || r.phase() == dev.tandem.workflows.model.NodePhase.DELETED) {
        return; // a stranger, or the end of a node we no longer track
      }
      e = nodes.entry(r.ordinal(), r.revision());
      e.started = true;
    }
    if (e.report == null || r.seq() > e.report.seq()) {
      e.report = r;
      StartProbes.reported(e);
      e.lastHeardMillis = Workflow.currentTimeMillis();
      PodRejection.note(s, e, r);
      dirty = true;
    }
  }

  public void clusterHealth(ClusterHealth h) {
    ClusterHealth before = s.health.get(h.component());
    if (before != null
        && before.observedAt() != null
        && h.observedAt() != null
        && h.observedAt().isBefore(before.observedAt())) {
      return; // late
    }
    s.health.put(h.component(), h);
    s.healthHeardMillis.put(h.component(), Workflow.currentTimeMillis());
    dirty = true;
  }

  public void drainsHeld(HeldDrains h) {
    MassFault.heard(s, h);
    dirty = true;
  }

  public void demandObserved(NodeSetDemand d) {
    Autoscaler.demand(s.auto, d, Workflow.currentTimeMillis());
    dirty = true;
  }

  public void resync() {
    dirty = true;
  }

  @Override
  public NodeSetSnapshot status() {
    return NodeSetSnapshots.of(input.ref(), s, status.current());
  }

  // ---- helpers ----

  /**
   * The spec is another custom resource's of the same name: the API server gives a resource created
   * again under a deleted one's name a new uid (and generations from 1 again).
   */
  private boolean anotherResource(NodeSetSpecView spec) {
    String mine = s.latest != null ? s.latest.uid() : s.spec != null ? s.spec.uid() : null;
    return mine != null && spec.uid() != null && !mine.equals(spec.uid());
  }

  private void accept(NodeSetSpecView spec) {
    s.latest = spec;
    List<String> problems = NodeSetSpecValidator.validate(spec);
    if (problems.isEmpty()) {
      s.spec = spec;
      s.invalidMessage = null;
      PodRejection.specAccepted(s);
    } else {
      s.invalidMessage = String.join("; ", problems);
      log.warn("NodeSet {} spec is invalid: {}", input.ref(), s.invalidMessage);
    }
  }

  /** See {@link ContinueAsNewTiming}. */
  private void maybeContinueAsNew(boolean busy) {
    if (!ContinueAsNewTiming.due(
        Workflow.getInfo().getHistoryLength(),
        input.tuning().maxHistoryEvents(),
        Workflow.getInfo().isContinueAsNewSuggested(),
        busy)) {
      return;
    }
    status.idle(); // no write of this run lands after the next run's
    RefusedContinues.awaitShortTask();
    NodeSetWorkflow next = Workflow.newContinueAsNewStub(NodeSetWorkflow.class);
    next.run(new NodeSetInput(input.ref(), s.latest, input.tuning(), s));
  }
}
