package dev.tandem.workflows.remediation;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.TimelineEntry;
import dev.tandem.workflows.remediation.BudgetStatus.Entry;
import dev.tandem.workflows.support.SignalInbox;
import io.temporal.common.VersioningBehavior;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import io.temporal.workflow.WorkflowVersioningBehavior;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;

/**
 * Grants slots within the budgets (docs/remediation.md, "Budgets"): the one arbiter of every
 * automatic action that takes a Kubernetes node's Slurm nodes out of service, the remediation
 * ladder and the unhealthy-condition drain alike. A request is a remediation's ({@code
 * remediation/<node>} asks) or a drain's (the node watcher asks for an unhealthy node, {@link
 * SlotRequest#DRAIN}); both kinds of the same node count as one node in every scope.
 *
 * <ol>
 *   <li>{@code acquire}: a new request joins the end of the line; a waiting one keeps its place
 *       (its request is updated); a holder asking again gets its grant re-sent, so a lost {@code
 *       slotGranted} or drain heals on the requester's next ask. A drain holder's request is
 *       updated too: Slurm nodes it no longer names have their drain lifted.
 *   <li>{@code release}: the request leaves the holders or the line and is remembered in {@code
 *       recent} (bounded). A released drain holder has its drains lifted.
 *   <li>After every change, grant what the budgets allow ({@link BudgetLine}: walk the line in
 *       order, grant when every NodeSet scope and the domain scope has room, first come first
 *       served per scope). A remediation's grant is {@code slotGranted} to {@code
 *       remediation/<node>}; a remediation workflow that does not run any more gives its slot back
 *       at once. A drain's grant is the drain itself ({@link BudgetDrains}). What is not granted
 *       stays in service: unknown or full means no drain (fail closed).
 *   <li>Report the line's length as the gauge {@code tandem_remediation_waiting_nodes}, and the
 *       held drains to their NodeSets (condition {@code AutomaticDrainsHeld}) and as the gauge
 *       {@code tandem_automatic_drains_held}.
 *   <li>Continue as new, carrying the line, before the history grows large.
 * </ol>
 */
public class RemediationBudgetWorkflowImpl implements RemediationBudgetRun {
  private static final Logger log = Workflow.getLogger(RemediationBudgetWorkflowImpl.class);

  /** Continue as new once the history is this long. */
  static final int MAX_HISTORY_EVENTS = 2000;

  static final String WAITING_GAUGE = "tandem_remediation_waiting_nodes";

  /** The status query keeps this many rejected signals. */
  static final int MAX_REJECTED_SIGNALS = 10;

  private final BudgetLine line;
  private final Set<String> resend = new LinkedHashSet<>();
  private final List<TimelineEntry> rejected = new ArrayList<>();
  private final BudgetDrains drains = new BudgetDrains();
  private boolean dirty;

  @WorkflowInit
  public RemediationBudgetWorkflowImpl(BudgetStatus carried) {
    this.line = BudgetLine.from(carried);
    if (carried != null) {
      rejected.addAll(carried.rejectedSignals());
    }
    SignalInbox.open(RemediationBudgetWorkflow.class, this, this::rejected);
  }

  @Override
  // Auto-upgrade: moves to the current build; decision changes after a release get a
  // Workflow.getVersion patch (docs/upgrading.md).
  @WorkflowVersioningBehavior(VersioningBehavior.AUTO_UPGRADE)
  public void run(BudgetStatus carried) {
    // A carried holder may have missed its grant while the previous run ended: send it again.
    for (Entry e : line.holders) {
      resend.add(e.request().key());
    }
    while (true) {
      // The line is all there is to carry (the next run sends every holder its grant again).
      // Checked on every pass, signalled or not, so a busy budget's history stays bounded too.
      if (historyLong()) {
        Workflow.newContinueAsNewStub(RemediationBudgetWorkflow.class).run(status());
      }
      dirty = false;
      List<SlotRequest> send = new ArrayList<>(line.grant(now()));
      for (String key : resend) {
        int h = line.indexOf(line.holders, key);
        if (h >= 0 && !send.contains(line.holders.get(h).request())) {
          send.add(line.holders.get(h).request());
        }
      }
      resend.clear();
      boolean released = false;
      for (SlotRequest r : send) {
        if (!grant(r)) {
          line.release(r.key(), "remediation workflow not running", now());
          released = true;
        }
      }
      if (released) {
        continue; // the freed slots may go to the next in line
      }
      drains.lift(line.holders);
      drains.report(line);
      Workflow.getMetricsScope().gauge(WAITING_GAUGE).update(line.waiting.size());
      Workflow.setCurrentDetails(details());
      Workflow.await(Duration.ofHours(1), () -> dirty);
    }
  }

  private static boolean historyLong() {
    return Workflow.getInfo().getHistoryLength() >= MAX_HISTORY_EVENTS
        || Workflow.getInfo().isContinueAsNewSuggested();
  }

  private boolean grant(SlotRequest r) {
    if (r.isDrain()) {
      drains.grant(r);
      return true;
    }
    String id = Names.remediationWorkflowId(r.k8sNode());
    try {
      Workflow.newUntypedExternalWorkflowStub(id).signal(Names.SIGNAL_SLOT_GRANTED, r);
      return true;
    } catch (SignalExternalWorkflowException | ApplicationFailure e) {
      log.info("remediation {} is not running: {}", id, e.getMessage());
      return false;
    }
  }

  public void acquire(SlotRequest r) {
    int h = line.indexOf(line.holders, r.key());
    if (h >= 0) {
      Entry e = line.holders.get(h);
      List<NodeRef> dropped = new ArrayList<>(e.request().nodes());
      dropped.removeAll(r.nodes());
      drains.liftLater(dropped);
      line.holders.set(h, new Entry(r, e.since(), e.note()));
      resend.add(r.key());
    } else {
      int w = line.indexOf(line.waiting, r.key());
      if (w >= 0) {
        Entry e = line.waiting.get(w);
        line.waiting.set(w, new Entry(r, e.since(), e.note()));
      } else {
        line.waiting.add(new Entry(r, now(), "waiting"));
      }
    }
    dirty = true;
  }

  public void release(SlotRelease r) {
    int h = line.indexOf(line.holders, r.key());
    Entry gone = line.release(r.key(), r.note(), now());
    if (gone != null) {
      if (h >= 0 && gone.request().isDrain()) {
        drains.liftLater(gone.request().nodes());
      }
      dirty = true;
    }
  }

  @Override
  public BudgetStatus status() {
    BudgetStatus s = line.status();
    return new BudgetStatus(s.holders(), s.waiting(), s.recent(), rejected);
  }

  /** A signal whose payload cannot be used ({@link SignalInbox}): kept for the status query. */
  private void rejected(String detail) {
    rejected.add(new TimelineEntry(now(), null, "signal-rejected", detail));
    if (rejected.size() > MAX_REJECTED_SIGNALS) {
      rejected.remove(0);
    }
  }

  private String details() {
    List<String> h = new ArrayList<>();
    List<String> d = new ArrayList<>();
    for (Entry e : line.holders) {
      (e.request().isDrain() ? d : h).add(e.request().k8sNode());
    }
    List<String> w = new ArrayList<>();
    for (Entry e : line.waiting) {
      w.add(
          e.request().k8sNode() + (e.request().isDrain() ? " drain" : "") + " (" + e.note() + ")");
    }
    return "in remediation: "
        + (h.isEmpty() ? "none" : String.join(", ", h))
        + "; drained as unhealthy: "
        + (d.isEmpty() ? "none" : String.join(", ", d))
        + "; waiting: "
        + (w.isEmpty() ? "none" : String.join(", ", w));
  }

  private static Instant now() {
    return Instant.ofEpochMilli(Workflow.currentTimeMillis());
  }
}
