package dev.tandem.workflows.node;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.model.UpdateCommand;
import dev.tandem.workflows.support.Observations;
import dev.tandem.workflows.support.SearchAttributes;
import dev.tandem.workflows.support.SignalInbox;
import dev.tandem.workflows.support.Step;
import dev.tandem.workflows.support.WaitTimers;
import io.temporal.common.VersioningBehavior;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import io.temporal.workflow.WorkflowVersioningBehavior;
import java.time.Duration;

/**
 * The life of one Slurm node backed by one slurmd pod.
 *
 * <ol>
 *   <li>Provisioning: create the pod at the target revision (or adopt the pod that exists) and wait
 *       until it runs. A pod that ended is deleted and made again.
 *   <li>Registering: wait until the pod's own slurmd has registered with slurmctld (its start time
 *       is after the pod's creation, so the previous pod's slurmd does not count).
 *   <li>Ready: in service. Tandem lifts only its own drains; an administrator's drain (a reason
 *       without the {@code tandem:} prefix) stays, whatever Tandem does.
 *   <li>Draining: any hold (a {@code drain} signal from an owner such as manual or k8s-cordon) or
 *       pending operation ({@code update}, {@code delete}) drains the node in Slurm with a {@code
 *       tandem:<cause>: ...} reason and waits until no job runs on it. Unknown counts as busy. The
 *       operation's drain timeout says whether to wait on or to force (mark DOWN).
 *   <li>Drained: with no operation it stays out of service until every holder has sent {@code
 *       undrain}; then it registers again (lifting Tandem's drain) and serves.
 *   <li>Updating: delete the pod, remove its Slurm node record (a dynamic node registers afresh
 *       with the new settings), create it at the new revision, then provisioning again. A lost or
 *       ended pod's record goes the same way before its replacement is created.
 *   <li>Deleting: delete the pod, remove the Slurm node record where Slurm allows; deleted.
 * </ol>
 *
 * <p>Signals only change {@link NodeLifecycleState}; the loop acts. Signals may be lost or
 * duplicated, so every phase also re-reads Kubernetes and Slurm on a timer: a lost signal delays,
 * never wedges. At rest that timer lengthens while the re-reads find nothing new ({@link
 * RestTimer}). Every change of phase is recorded in the node's timeline, and where a pass ends (it
 * waits, or the node is deleted) the node reports to the NodeSet workflow what changed. The
 * workflow continues as new before its history grows large.
 */
public class NodeLifecycleWorkflowImpl implements NodeLifecycleRun {

  private final NodeLifecycleInput input;
  private final NodeLifecycleState s;
  private final NodeEffects fx;
  private final boolean fresh;
  private boolean dirty;
  private boolean resyncRequested;
  private final NodeReporter reporter;
  private final SignalChecks checks;
  private final NodeCommands commands;

  /**
   * Runs before any signal handler, so that signals delivered with the start (signal-with-start)
   * find the state ready.
   */
  @WorkflowInit
  public NodeLifecycleWorkflowImpl(NodeLifecycleInput in) {
    this.input = in;
    this.fresh = in.state() == null;
    this.s = fresh ? initialState(in) : in.state();
    this.fx = new NodeEffects(in, s);
    this.reporter = new NodeReporter(in, s, fx);
    this.checks = new SignalChecks(fx);
    this.commands = new NodeCommands(in, s, fx);
    SignalInbox.open(NodeLifecycleWorkflow.class, this, r -> fx.timeline("signal-rejected", r));
  }

  @Override
  // Auto-upgrade: moves to the current build; decision changes after a release get a
  // Workflow.getVersion patch (docs/upgrading.md).
  @WorkflowVersioningBehavior(VersioningBehavior.AUTO_UPGRADE)
  public NodePhase run(NodeLifecycleInput in) {
    WaitTimers waits = new WaitTimers();
    NodePhases phases = new NodePhases(s, fx, in.tuning());
    RestTimer rest = new RestTimer(in.tuning());
    boolean signalled = true; // the first pass counts as news: start at rest's shortest wait
    SearchAttributes sa = new SearchAttributes(in.tuning().searchAttributes());
    sa.set(SearchAttributes.NODE, in.ref().pod());
    sa.set(SearchAttributes.NODESET, in.ref().namespace() + "/" + in.ref().nodeSet());
    if (fresh) {
      fx.timeline("started", "revision " + s.target.revision());
    }
    while (true) {
      sa.set(SearchAttributes.PHASE, s.phase.label());
      if (s.pod != null && s.pod.k8sNode() != null) {
        sa.set(SearchAttributes.K8S_NODE, s.pod.k8sNode());
      }
      phases.refresh = phases.refresh || resyncRequested;
      resyncRequested = false;
      dirty = false;
      Step<NodePhase> step = phases.handle();
      phases.refresh = false;
      rest.passed(signalled, RestTimer.seen(s.pod, s.slurm));
      if (step.next() != s.phase) {
        transition(step);
        if (s.phase == NodePhase.DELETED) {
          reporter.report();
          reporter.settle();
          sa.set(SearchAttributes.PHASE, s.phase.label());
          return NodePhase.DELETED;
        }
        continue;
      }
      // One report per pass, where it waits: phases passed through within a pass are in the
      // timeline and the node's events, not in the NodeSet's signals.
      reporter.report();
      Workflow.setCurrentDetails(reporter.details());
      long wait = rest.waitSeconds(step, s.phase);
      boolean woken = waits.await(Duration.ofSeconds(wait), () -> dirty);
      signalled = woken;
      phases.refresh = !woken;
      maybeContinueAsNew();
    }
  }

  private static NodeLifecycleState initialState(NodeLifecycleInput in) {
    NodeLifecycleState st = new NodeLifecycleState();
    st.target = in.template();
    st.phaseSinceMillis = Workflow.currentTimeMillis();
    return st;
  }

  private void transition(Step<NodePhase> step) {
    s.phase = step.next();
    s.phaseSinceMillis = fx.nowMillis();
    fx.timeline(step.event(), step.detail());
    boolean warning = step.event().startsWith("pod-lost") || step.event().endsWith("forced");
    fx.event(warning, eventReason(step.next()), step.event() + ": " + step.detail());
  }

  private static String eventReason(NodePhase p) {
    String l = p.label();
    return "Node" + Character.toUpperCase(l.charAt(0)) + l.substring(1);
  }

  // ---- signals (SignalInbox: only usable payloads get here): record intent, wake the loop ----

  public void drain(NodeCommand c) {
    dirty |= commands.drain(c);
  }

  public void undrain(NodeCommand c) {
    dirty |= commands.undrain(c);
  }

  public void delete(NodeCommand c) {
    dirty |= commands.delete(c);
  }

  public void update(UpdateCommand c) {
    dirty |= commands.update(c);
  }

  public void podObserved(PodView pod) {
    if (!checks.about(Names.SIGNAL_POD_OBSERVED, "pod", pod.name(), input.ref().pod())) {
      return;
    }
    if (Observations.earlierPod(s.pod, pod)) {
      // About the pod this node replaced, not the one it holds: taken for lost, it was recreated.
      return;
    }
    s.pod = pod;
    dirty = true;
  }

  public void slurmObserved(SlurmNodeView node) {
    if (!checks.about(Names.SIGNAL_SLURM_OBSERVED, "node", node.name(), input.ref().slurmName())) {
      return;
    }
    if (s.slurm != null && Observations.late(node.observedAt(), s.slurm.observedAt())) {
      return; // late: an activity read something newer
    }
    s.slurm = node;
    dirty = true;
  }

  public void resync() {
    resyncRequested = true;
    dirty = true;
  }

  @Override
  public NodeStatus status() {
    return reporter.status();
  }

  // ---- helpers ----

  private void maybeContinueAsNew() {
    long events = Workflow.getInfo().getHistoryLength();
    if (events < input.tuning().maxHistoryEvents()
        && !Workflow.getInfo().isContinueAsNewSuggested()) {
      return;
    }
    reporter.settle();
    fx.timeline("continued-as-new", "after " + events + " history events");
    NodeLifecycleWorkflow next = Workflow.newContinueAsNewStub(NodeLifecycleWorkflow.class);
    next.run(
        new NodeLifecycleInput(
            input.ref(), s.target, input.ownerUid(), input.deletePolicy(), input.tuning(), s));
  }
}
