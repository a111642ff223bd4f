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

  /** Writes the current status if it differs from the last one written; returns it. */
  NodeSetStatusView write() {
    NodeSetStatusView st = current();
    if (NodeSetStatusCalculator.same(st, s.written)) {
      writeFailed = false;
      return s.written;
    }
    try {
      ActivityStubs.kube("write status of " + input.ref(), local)
          .writeNodeSetStatus(input.ref(), st);
      s.written = st;
      writeFailed = false;
    } catch (ActivityFailure e) {
      log.warn("cannot write status of {}: {}", input.ref(), e.getMessage());
      writeFailed = true;
    }
    return st;
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
