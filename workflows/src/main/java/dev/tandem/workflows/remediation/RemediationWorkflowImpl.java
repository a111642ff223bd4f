package dev.tandem.workflows.remediation;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.support.SearchAttributes;
import dev.tandem.workflows.support.SignalInbox;
import io.temporal.common.VersioningBehavior;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import io.temporal.workflow.WorkflowVersioningBehavior;
import java.time.Duration;
import java.time.Instant;

/**
 * The repair of one Kubernetes node (docs/remediation.md, "The ladder").
 *
 * <ol>
 *   <li>Triggers arrive as signals (the first with the start). An invalid payload is recorded in
 *       the timeline ({@code SignalInbox}) and never acted on; a run without any valid trigger ends
 *       DISMISSED. A later trigger joins: it is recorded, and one that is not NotReady ends an
 *       observation early.
 *   <li>Observing: read the node, its slurmd pods and the policy once. Node gone, or no NodeSet on
 *       it with {@code spec.remediation} and no operator trigger: DISMISSED (an operator trigger
 *       runs with the default policy). Only NotReady triggers: wait {@code notReadySeconds} from
 *       the first trigger, then re-check: healthy is DISMISSED, nothing done.
 *   <li>WaitingForSlot: ask the budget workflow for a slot ({@code acquire}, again every five
 *       minutes so a lost signal never wedges) until {@code slotGranted} arrives.
 *   <li>Draining: {@code drain} (owner remediation, reason = the cause) to every node workflow on
 *       the node; one that does not run is recorded and skipped. The node workflows own the Slurm
 *       drains.
 *   <li>WaitingForJobs: see {@link JobWait} (timeout, then WAIT or FORCE).
 *   <li>The policy's rungs in order (restart slurmd, reboot, replace): see {@link ActionSteps}; the
 *       first re-check that passes goes to Returning (through HealthChecking when the policy has a
 *       health-check job, {@link HealthChecks}), the last rung's timeout to Failed.
 *   <li>Returning / Failed: see {@link Endings}; both give the slot back. RECOVERED, FAILED and
 *       DISMISSED end the workflow (a new trigger then starts a new one).
 * </ol>
 *
 * <p>Signals only record and wake the loop; the loop acts. Every step waits with a timer and wakes
 * early on a signal ({@code recheck}, {@code slotGranted}, a trigger). The workflow continues as
 * new before its history grows large (a WAIT-forever job wait may last weeks), carrying {@link
 * RemediationState}; the timeline keeps the last {@value Ladder#TIMELINE_LIMIT} entries.
 */
public class RemediationWorkflowImpl implements RemediationRun {
  /** At most this many triggers are kept (the first, the cause, always stays). */
  static final int TRIGGER_LIMIT = 50;

  private final RemediationInput input;
  private final Tuning tuning;
  private final Ladder l;
  private final boolean fresh;
  private boolean dirty;

  @WorkflowInit
  public RemediationWorkflowImpl(RemediationInput in) {
    this.input = in;
    this.tuning = in.tuningOrDefaults();
    this.fresh = in.carried() == null;
    this.l = fresh ? new Ladder(in.k8sNode()) : Ladder.from(in.carried());
    if (fresh) {
      l.startedAt = Instant.ofEpochMilli(Workflow.currentTimeMillis());
      l.stepSinceMillis = Workflow.currentTimeMillis();
    }
    SignalInbox.open(RemediationWorkflow.class, this, r -> l.timeline("signal-rejected", r));
  }

  @Override
  // Pinned: an execution finishes on the build that started it (docs/upgrading.md).
  @WorkflowVersioningBehavior(VersioningBehavior.PINNED)
  public RemediationStep run(RemediationInput in) {
    LadderEffects fx = new LadderEffects(l);
    EarlySteps early = new EarlySteps(l, fx);
    JobWait jobs = new JobWait(l, fx);
    ActionSteps actions = new ActionSteps(l, fx);
    Endings endings = new Endings(l, fx);
    SearchAttributes sa = new SearchAttributes(tuning.searchAttributes());
    sa.set(SearchAttributes.K8S_NODE, l.k8sNode);
    if (fresh) {
      // A signal-with-start delivers the trigger with the start; wait briefly for a late one.
      Workflow.await(Duration.ofMinutes(1), () -> l.first() != null);
      if (l.first() == null) {
        l.outcome = "no valid trigger";
        l.enter(RemediationStep.DISMISSED, "dismissed", l.outcome);
        return finish(sa);
      }
      RemediationMetrics.started(l);
    }
    while (true) {
      sa.set(SearchAttributes.REMEDIATION_STEP, l.step.label());
      dirty = false;
      Tick t = tick(early, jobs, actions, endings);
      if (l.step.terminal()) {
        return finish(sa);
      }
      if (t.moved()) {
        continue;
      }
      Workflow.setCurrentDetails(details());
      Workflow.await(Duration.ofSeconds(t.waitSeconds()), () -> dirty);
      maybeContinueAsNew();
    }
  }

  private Tick tick(EarlySteps early, JobWait jobs, ActionSteps actions, Endings endings) {
    if (l.exhausted) {
      return endings.fail();
    }
    return switch (l.step) {
      case OBSERVING -> early.observing();
      case WAITING_FOR_SLOT -> early.waitingForSlot();
      case DRAINING -> early.draining();
      case WAITING_FOR_JOBS -> jobs.waitingForJobs();
      case RESTARTING_SLURMD, REBOOTING, REPLACING -> actions.act();
      case HEALTH_CHECKING -> actions.healthChecking();
      case RETURNING -> endings.returning();
      case RECOVERED, FAILED, DISMISSED -> Tick.next();
    };
  }

  private RemediationStep finish(SearchAttributes sa) {
    sa.set(SearchAttributes.REMEDIATION_STEP, l.step.label());
    Workflow.setCurrentDetails(details());
    RemediationMetrics.finished(l);
    return l.step;
  }

  // ---- signals: record, wake the loop ----

  public void trigger(RemediationTrigger t) {
    boolean first = l.first() == null;
    if (l.triggers.contains(t)) {
      return; // a duplicate (watchers re-send what they see after a restart)
    }
    if (l.triggers.size() >= TRIGGER_LIMIT) {
      l.triggers.remove(1);
    }
    l.triggers.add(t);
    l.timeline(first ? "trigger" : "trigger-joined", t.cause() + source(t));
    dirty = true;
  }

  public void recheck() {
    dirty = true;
  }

  public void slotGranted(SlotRequest granted) {
    if (!l.k8sNode.equals(granted.k8sNode())) {
      l.timeline("signal-rejected", Names.SIGNAL_SLOT_GRANTED + ": not for " + l.k8sNode);
      return;
    }
    if (!l.granted && l.step == RemediationStep.WAITING_FOR_SLOT) {
      l.granted = true;
      dirty = true;
    }
  }

  @Override
  public RemediationState status() {
    return l.state();
  }

  private static String source(RemediationTrigger t) {
    return t.source() == null ? "" : " (from " + t.source() + ")";
  }

  /** The readable summary the Temporal UI shows. */
  private String details() {
    StringBuilder b = new StringBuilder(l.k8sNode).append(": ").append(l.step.label());
    LadderStep rung = l.currentRung();
    if (rung != null && !l.step.terminal()) {
      b.append(" (step ")
          .append(l.rung + 1)
          .append("/")
          .append(l.policy().steps().size())
          .append(" ")
          .append(rung.action().label())
          .append(")");
    }
    if (l.step == RemediationStep.WAITING_FOR_SLOT) {
      b.append(" (waiting for a slot in the budget; see workflow ")
          .append(Names.REMEDIATION_BUDGET_ID)
          .append(")");
    }
    if (l.step == RemediationStep.HEALTH_CHECKING && l.check != null) {
      b.append(" (health-check job ")
          .append(l.check.jobId() == null ? "not submitted yet" : l.check.jobId())
          .append(", ")
          .append(l.check.phase())
          .append(")");
    }
    if (l.jobsTimeoutRecorded) {
      b.append(" (jobs still run past the timeout; policy WAIT: waiting on)");
    }
    b.append(", cause ").append(l.cause());
    if (l.outcome != null) {
      b.append("; ").append(l.outcome);
    } else if (l.lastCheck != null) {
      b.append("; last check: ").append(l.lastCheck.summary());
    }
    return b.toString();
  }

  private void maybeContinueAsNew() {
    long events = Workflow.getInfo().getHistoryLength();
    if (events < tuning.maxHistoryEvents() && !Workflow.getInfo().isContinueAsNewSuggested()) {
      return;
    }
    l.timeline("continued-as-new", "after " + events + " history events");
    RemediationWorkflow next = Workflow.newContinueAsNewStub(RemediationWorkflow.class);
    next.run(new RemediationInput(l.k8sNode, l.state(), input.tuning()));
  }
}
