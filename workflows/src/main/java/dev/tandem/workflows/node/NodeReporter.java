package dev.tandem.workflows.node;

import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.support.Scoped;
import io.temporal.workflow.Promise;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the node workflow tells others about itself: the {@code nodeReported} signal to its NodeSet
 * workflow (on every change that matters to the NodeSet, and as a heartbeat every ten resync
 * periods in case one was lost) and the Temporal UI's current details. A report that failed to
 * arrive is sent again on the next pass, once per streak of failures: the NodeSet's status must not
 * wait for the heartbeat to hear that a node is ready, and a node without a NodeSet does not signal
 * more often than the heartbeat.
 *
 * <p>The signal goes out from a workflow thread of its own and the node goes on at once: a cordon's
 * drain reaches Slurm in the same workflow task as the report instead of one server round trip
 * later. Whether it arrived is looked at on the next report, and {@link #settle} waits for it
 * before the workflow continues as new or ends.
 */
final class NodeReporter {
  private final NodeLifecycleInput input;
  private final NodeLifecycleState s;
  private final NodeEffects fx;
  private NodeReport lastReport;
  private long lastReportMillis;
  private boolean lastFailed;
  private Promise<Boolean> inFlight;

  NodeReporter(NodeLifecycleInput input, NodeLifecycleState s, NodeEffects fx) {
    this.input = input;
    this.s = s;
    this.fx = fx;
  }

  /** Sends a report if something changed since the last one, or the heartbeat is due. */
  void report() {
    if (inFlight != null && inFlight.isCompleted()) {
      settle();
    }
    NodeReport r = build(s.reportSeq + 1);
    boolean changed = lastReport == null || !same(lastReport, r);
    long heartbeatMillis = input.tuning().resyncSeconds() * 10_000L;
    boolean due = fx.nowMillis() - lastReportMillis >= heartbeatMillis;
    if (!changed && !due) {
      return;
    }
    s.reportSeq = r.seq();
    lastReport = r;
    lastReportMillis = fx.nowMillis();
    // A report still in flight is superseded: the newer one carries a higher seq.
    inFlight = Scoped.async(NodeSetNotifier::send, input.ref().nodeSetWorkflowId(), r);
  }

  /** Waits for the report in flight, if any, and takes note of whether it arrived. */
  void settle() {
    if (inFlight != null) {
      Promise<Boolean> p = inFlight;
      inFlight = null;
      delivered(p.get());
    }
  }

  private void delivered(boolean delivered) {
    if (!delivered && !lastFailed) {
      lastReportMillis = Long.MIN_VALUE / 2; // the heartbeat is due on the next pass
    }
    lastFailed = !delivered;
  }

  /** The answer to the {@code status} query: a copy, so callers never see the state change. */
  NodeStatus status() {
    return new NodeStatus(
        input.ref(),
        s.phase,
        s.current == null ? null : s.current.revision(),
        s.target == null ? null : s.target.revision(),
        s.operation.name().toLowerCase(java.util.Locale.ROOT),
        new java.util.TreeMap<>(s.holds),
        s.pod,
        s.slurm,
        s.busy,
        problems(),
        java.util.List.copyOf(s.timeline));
  }

  /** One line: phase, Slurm state, holders, the jobs a drain waits for, problem. */
  String details() {
    List<String> parts = new ArrayList<>();
    parts.add("phase " + s.phase.label());
    if (s.slurm != null) {
      parts.add("slurm " + s.slurm.summary());
    }
    if (!s.holds.isEmpty()) {
      parts.add("held by " + String.join(", ", s.holds.keySet()));
    }
    if (Boolean.TRUE.equals(s.busy)) {
      parts.add("jobs " + s.jobIds); // read while draining; unread (null) says nothing
    }
    String problems = problems();
    if (problems != null) {
      parts.add("problem: " + problems);
    }
    return String.join("; ", parts);
  }

  /**
   * Every problem the node holds, in one line (null if none): the current one and a pod revision
   * the cluster refused. The refusal holds while the node waits (no pod, nothing to retry), so it
   * is shown however many other problems come and go meanwhile.
   */
  String problems() {
    List<String> all = new ArrayList<>();
    if (s.problem != null) {
      all.add(s.problem);
    }
    if (s.rejectedRevision != null) {
      all.add(
          "the cluster rejected the pod at revision " + s.rejectedRevision + ": " + s.rejection);
    }
    return all.isEmpty() ? null : String.join("; ", all);
  }

  private NodeReport build(long seq) {
    SlurmNodeView n = s.slurm;
    return new NodeReport(
            input.ref().pod(),
            input.ref().ordinal(),
            s.phase,
            s.current == null ? null : s.current.revision(),
            s.target == null ? null : s.target.revision(),
            n == null ? "unknown" : n.summary(),
            s.busy,
            n == null ? null : n.reason(),
            s.pod == null ? null : s.pod.k8sNode(),
            problems(),
            seq)
        .withPodRejected(s.rejectedRevision, s.rejection);
  }

  private static boolean same(NodeReport a, NodeReport b) {
    return a.phase() == b.phase()
        && Objects.equals(a.revision(), b.revision())
        && Objects.equals(a.targetRevision(), b.targetRevision())
        && Objects.equals(a.slurmState(), b.slurmState())
        && Objects.equals(a.busy(), b.busy())
        && Objects.equals(a.reason(), b.reason())
        && Objects.equals(a.k8sNode(), b.k8sNode())
        && Objects.equals(a.problem(), b.problem())
        && Objects.equals(a.podRejectedRevision(), b.podRejectedRevision())
        && Objects.equals(a.podRejected(), b.podRejected());
  }
}
