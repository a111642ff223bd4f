package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.activities.KubeActivities;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.support.ActivityStubs;
import dev.tandem.workflows.support.Scoped;
import dev.tandem.workflows.support.Versions;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import org.slf4j.Logger;

/**
 * Computes the NodeSet's status ({@link NodeSetStatusCalculator}), writes it to the custom resource
 * when it changed, and lifts the finalizer at the end. A failed write is retried on the next pass;
 * the computed status is what the {@code status} query shows either way.
 *
 * <p>Since {@link Versions#ASYNC_STATUS} ({@link #async}) a write runs beside the workflow's loop
 * instead of holding it:
 *
 * <ol>
 *   <li>A pass that finds the status changed starts a write and goes on at once: the next report
 *       can start the next wave of a rolling update while the write is under way. Before, every
 *       pass of a rollout (the status changes on every report) waited for an activity's round trip
 *       before it could act on the reports that came meanwhile: at 1,000 nodes on two cores, a
 *       rollout wave took about 6 s longer than a node's cycle.
 *   <li>At most one write is under way. A pass that finds one under way leaves the status to the
 *       pass that follows its end ({@link #settled()} wakes the loop), which writes the status as
 *       it then is: nothing is lost, intermediate statuses are skipped.
 *   <li>Before continue-as-new and before the finalizer is lifted, the write under way is waited
 *       for ({@link #drain}), so the state carried on says what was written.
 * </ol>
 */
final class NodeSetStatusWriter {
  private static final Logger log = Workflow.getLogger(NodeSetStatusWriter.class);

  private final NodeSetInput input;
  private final NodeSetState s;

  /** The last write (or release) failed: try again after a poll interval, not a resync. */
  boolean writeFailed;

  /** Set by the workflow at the start of each run. */
  Rules rules = Rules.LEGACY;

  /** Writes run beside the loop ({@link Versions#ASYNC_STATUS}); set at the start of each run. */
  boolean async;

  /** The write under way (async only), and the status it writes. */
  private Promise<Boolean> inFlight;

  private NodeSetStatusView inFlightStatus;

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
    return async ? writeBeside() : writeNow();
  }

  /** Step 1 and 2: start a write unless one is under way. */
  private NodeSetStatusView writeBeside() {
    NodeSetStatusView st = current();
    if (inFlight != null) {
      if (!inFlight.isCompleted()) {
        return st;
      }
      settle();
    }
    if (NodeSetStatusCalculator.same(st, s.written)) {
      writeFailed = false;
      return st;
    }
    KubeActivities kube = ActivityStubs.kube("write status of " + input.ref());
    inFlightStatus = st;
    inFlight =
        Scoped.async(
            (ref, view) -> {
              kube.writeNodeSetStatus(ref, view);
              return Boolean.TRUE;
            },
            input.ref(),
            st);
    return st;
  }

  /** The write under way has ended and its outcome is not taken yet: the loop should pass. */
  boolean settled() {
    return inFlight != null && inFlight.isCompleted();
  }

  /** Step 3: waits for the write under way, if any, and takes its outcome. */
  void drain() {
    if (inFlight != null) {
      Workflow.await(() -> inFlight.isCompleted());
      settle();
    }
  }

  private void settle() {
    if (inFlight.getFailure() == null) {
      s.written = inFlightStatus;
      writeFailed = false;
    } else {
      log.warn("cannot write status of {}: {}", input.ref(), inFlight.getFailure().getMessage());
      writeFailed = true;
    }
    inFlight = null;
    inFlightStatus = null;
  }

  private NodeSetStatusView writeNow() {
    NodeSetStatusView st = current();
    if (NodeSetStatusCalculator.same(st, s.written)) {
      writeFailed = false;
      return s.written;
    }
    try {
      ActivityStubs.kube("write status of " + input.ref()).writeNodeSetStatus(input.ref(), st);
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
    drain();
    writeNow();
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
