package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.support.ActivityStubs;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import org.slf4j.Logger;

/**
 * Computes the NodeSet's status ({@link NodeSetStatusCalculator}), writes it to the custom resource
 * when it changed, and lifts the finalizer at the end. A failed write is retried on the next pass;
 * the computed status is what the {@code status} query shows either way.
 */
final class NodeSetStatusWriter {
  private static final Logger log = Workflow.getLogger(NodeSetStatusWriter.class);

  private final NodeSetInput input;
  private final NodeSetState s;

  /** The last write (or release) failed: try again after a poll interval, not a resync. */
  boolean writeFailed;

  /** Set by the workflow at the start of each run. */
  Rules rules = Rules.LEGACY;

  /**
   * The status is written by a local activity ({@code Versions.LOCAL_STATUS_WRITE}); set at the
   * start of each run. A write that fails its three quick attempts is tried again on the next pass,
   * a poll interval later, as a failed regular one is.
   */
  boolean local;

  NodeSetStatusWriter(NodeSetInput input, NodeSetState s) {
    this.input = input;
    this.s = s;
  }

  /** The status as of now, from the state. */
  NodeSetStatusView current() {
    return NodeSetStatusCalculator.compute(
        s,
        Names.PREFIX + "nodeset=" + input.ref().name(),
        Instant.ofEpochMilli(Workflow.currentTimeMillis()),
        rules);
  }

  /**
   * Spaced writes ({@code Versions.PACED_STATUS}); set at the start of each run. While the NodeSet
   * is busy (a rollout, a scale: {@link ContinueAsNewTiming#busy}) its counts change on nearly
   * every pass, and each write held the pass (0.75 s at the median in {@code tandem bench fleet} at
   * 1,000 nodes, over 100 writes in a rollout): a change of counts only is then written at most
   * every {@link #PACE_MILLIS}; a change of any condition's status or reason, and every change of a
   * settled NodeSet, at once.
   */
  boolean paced;

  static final long PACE_MILLIS = 2_000;

  /** When this run last wrote the status (workflow time); 0 before its first write. */
  private long lastWriteMillis;

  /** A write held back by the pace is due at this time (workflow time); 0 if none is. */
  long dueMillis;

  /** Writes the current status if it differs from the last one written (see {@link #paced}). */
  NodeSetStatusView write() {
    NodeSetStatusView st = current();
    dueMillis = 0;
    if (NodeSetStatusCalculator.same(st, s.written)) {
      writeFailed = false;
      return s.written;
    }
    long now = Workflow.currentTimeMillis();
    if (paced
        && s.written != null
        && now - lastWriteMillis < PACE_MILLIS
        && sameConditions(st, s.written)
        && ContinueAsNewTiming.busy(st, s.spec == null ? 0 : s.spec.replicas())) {
      dueMillis = lastWriteMillis + PACE_MILLIS;
      return st;
    }
    try {
      ActivityStubs.kube("write status of " + input.ref(), local)
          .writeNodeSetStatus(input.ref(), st);
      s.written = st;
      lastWriteMillis = now;
      writeFailed = false;
    } catch (ActivityFailure e) {
      log.warn("cannot write status of {}: {}", input.ref(), e.getMessage());
      writeFailed = true;
    }
    return st;
  }

  /** The same conditions by type, status and reason (messages, which carry counts, aside). */
  private static boolean sameConditions(NodeSetStatusView a, NodeSetStatusView b) {
    if (a.conditions().size() != b.conditions().size()) {
      return false;
    }
    for (int i = 0; i < a.conditions().size(); i++) {
      Condition x = a.conditions().get(i);
      Condition y = b.conditions().get(i);
      if (!x.type().equals(y.type())
          || !x.status().equals(y.status())
          || !java.util.Objects.equals(x.reason(), y.reason())) {
        return false;
      }
    }
    return true;
  }

  /** Writes the final status and lifts the finalizer; false (retry later) if Kubernetes failed. */
  boolean release() {
    write();
    try {
      ActivityStubs.kube("release NodeSet " + input.ref()).releaseNodeSet(input.ref());
      return true;
    } catch (ActivityFailure e) {
      log.warn("cannot release {}: {}", input.ref(), e.getMessage());
      writeFailed = true;
      return false;
    }
  }

  /** One word for the TandemPhase search attribute. */
  String phase(NodeSetStatusView st) {
    if (s.deleting) {
      return "deleting";
    }
    if (s.invalidMessage != null || PodRejection.active(s, rules)) {
      return "invalid";
    }
    Condition degraded = st.condition(Condition.DEGRADED);
    if (degraded != null && degraded.statusTrue()) {
      return "degraded";
    }
    Condition progressing = st.condition(Condition.PROGRESSING);
    return progressing != null && progressing.statusTrue() ? "progressing" : "ready";
  }

  /** The Temporal UI's current details. */
  String details(NodeSetStatusView st) {
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
}
