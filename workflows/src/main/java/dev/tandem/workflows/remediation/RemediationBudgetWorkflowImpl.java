package dev.tandem.workflows.remediation;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.TimelineEntry;
import dev.tandem.workflows.remediation.BudgetStatus.Entry;
import dev.tandem.workflows.support.SignalInbox;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;

/**
 * Grants remediation slots within the budgets (docs/remediation.md, "Budgets").
 *
 * <ol>
 *   <li>{@code acquire}: a new node joins the end of the line; a waiting node keeps its place (its
 *       request is updated); a holder asking again gets its grant re-sent, so a lost {@code
 *       slotGranted} heals on the remediation's next periodic ask.
 *   <li>{@code release}: the node leaves the holders or the line and is remembered in {@code
 *       recent} (bounded).
 *   <li>After every change, grant what the budgets allow ({@link BudgetLine}: walk the line in
 *       order, grant when every NodeSet scope and the domain scope has room, first come first
 *       served per scope) and send {@code slotGranted} to {@code remediation/<node>}. A node whose
 *       remediation workflow does not run any more gives its slot back at once.
 *   <li>Report the length of the line as the gauge {@code tandem_remediation_waiting_nodes}.
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
  public void run(BudgetStatus carried) {
    // A carried holder may have missed its grant while the previous run ended: send it again.
    for (Entry e : line.holders) {
      resend.add(e.request().k8sNode());
    }
    while (true) {
      // The line is all there is to carry (the next run sends every holder its grant again).
      // Checked on every pass, signalled or not, so a busy budget's history stays bounded too.
      if (historyLong()) {
        Workflow.newContinueAsNewStub(RemediationBudgetWorkflow.class).run(status());
      }
      dirty = false;
      List<SlotRequest> send = new ArrayList<>(line.grant(now()));
      for (String node : resend) {
        int h = line.indexOf(line.holders, node);
        if (h >= 0 && !send.contains(line.holders.get(h).request())) {
          send.add(line.holders.get(h).request());
        }
      }
      resend.clear();
      boolean released = false;
      for (SlotRequest r : send) {
        if (!grant(r)) {
          line.release(r.k8sNode(), "remediation workflow not running", now());
          released = true;
        }
      }
      if (released) {
        continue; // the freed slots may go to the next in line
      }
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
    if (line.indexOf(line.holders, r.k8sNode()) >= 0) {
      resend.add(r.k8sNode());
    } else {
      int w = line.indexOf(line.waiting, r.k8sNode());
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
    if (line.release(r.k8sNode(), r.note(), now())) {
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
    for (Entry e : line.holders) {
      h.add(e.request().k8sNode());
    }
    List<String> w = new ArrayList<>();
    for (Entry e : line.waiting) {
      w.add(e.request().k8sNode() + " (" + e.note() + ")");
    }
    return "in remediation: "
        + (h.isEmpty() ? "none" : String.join(", ", h))
        + "; waiting: "
        + (w.isEmpty() ? "none" : String.join(", ", w));
  }

  private static Instant now() {
    return Instant.ofEpochMilli(Workflow.currentTimeMillis());
  }
}
