package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.support.ActivityStubs;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import org.slf4j.Logger;

/**
 * Computes the NodeSet's status ({@link NodeSetStatusCalculator}), writes it to the custom resource
 * when it changed, and lifts the finalizer at the end. A failed write is retried on the next pass;
 * the computed status is what the {@code status} query shows either way.
 *
 * <p>How a write runs:
 *
 * <ol>
 *   <li>A pass whose status differs from the last one written starts a write and goes on: the write
 *       is a regular activity, so the workflow task that started it ends at once, and the signals
 *       the pass sent to nodes and the reports that arrive meanwhile do not wait for it.
 *   <li>One write is in flight at a time, so writes land in the order they were made. A pass that
 *       finds one in flight writes nothing; the write's answer wakes the loop ({@link #wake}), and
 *       that pass writes the status as it is then if it still differs.
 *   <li>A write that failed its attempts is made again a poll interval later, not at once ({@code
 *       writeFailed} shortens the loop's wait to that).
 *   <li>Before the finalizer is lifted and before the workflow continues as new, the write in
 *       flight is waited for ({@link #idle}), so no write of this run lands after them. The final
 *       status before the finalizer is lifted is written inline, as a local activity.
 * </ol>
 */
final class NodeSetStatusWriter {
  private static final Logger log = Workflow.getLogger(NodeSetStatusWriter.class);

  private final NodeSetInput input;
  private final NodeSetState s;

  /** Called (on the workflow thread) when a write started by a pass is answered. */
  private final Runnable wake;

  /** The last write (or release) failed: try again after a poll interval, not a resync. */
  boolean writeFailed;

  /** The write in flight, and the status it writes. */
  private Promise<Void> inFlight;

  private NodeSetStatusView inFlightStatus;

  /** When a failed write may be made again (workflow time, ms). */
  private long retryAtMillis;

  NodeSetStatusWriter(NodeSetInput input, NodeSetState s, Runnable wake) {
    this.input = input;
    this.s = s;
    this.wake = wake;
  }

  /** The status as of now, from the state. */
  NodeSetStatusView current() {
    return NodeSetStatusCalculator.compute(
        s,
        Names.PREFIX + "nodeset=" + input.ref().name(),
        Instant.ofEpochMilli(Workflow.currentTimeMillis()));
  }

  /** Writes the final status and lifts the finalizer; false (retry later) if Kubernetes failed. */
  boolean release() {
    idle(); // the last write before the finalizer goes is made inline, after any in flight
    NodeSetStatusView st = current();
    if (!NodeSetStatusCalculator.same(st, s.written)) {
      try {
        ActivityStubs.kube("write status of " + input.ref(), true)
            .writeNodeSetStatus(input.ref(), st);
        s.written = st;
      } catch (ActivityFailure e) {
        log.warn("cannot write status of {}: {}", input.ref(), e.getMessage());
      }
    }
    try {
      ActivityStubs.kube("release NodeSet " + input.ref()).releaseNodeSet(input.ref());
      return true;
    } catch (ActivityFailure e) {
      log.warn("cannot release {}: {}", input.ref(), e.getMessage());
      writeFailed = true;
      return false;
    }
  }

  /**
   * Steps 1–3: takes a finished write's answer; starts a write of the current status if one is due.
   * Returns the current status.
   */
  NodeSetStatusView write() {
    NodeSetStatusView st = current();
    settle();
    if (inFlight != null) {
      return st;
    }
    if (NodeSetStatusCalculator.same(st, s.written)) {
      writeFailed = false;
      return s.written;
    }
    if (writeFailed && Workflow.currentTimeMillis() < retryAtMillis) {
      return st;
    }
    inFlightStatus = st;
    inFlight =
        Async.procedure(
            ActivityStubs.kubeFewAttempts("write status of " + input.ref())::writeNodeSetStatus,
            input.ref(),
            st);
    inFlight.handle(
        (ok, failure) -> {
          wake.run();
          return null;
        });
    return st;
  }

  /** Takes the answer of the write in flight, if it came. */
  private void settle() {
    if (inFlight == null || !inFlight.isCompleted()) {
      return;
    }
    RuntimeException failure = inFlight.getFailure();
    if (failure == null) {
      s.written = inFlightStatus;
      writeFailed = false;
    } else {
      log.warn("cannot write status of {}: {}", input.ref(), failure.getMessage());
      writeFailed = true;
      retryAtMillis = Workflow.currentTimeMillis() + input.tuning().pollSeconds() * 1000L;
    }
    inFlight = null;
    inFlightStatus = null;
  }

  /** Step 4: waits for the write in flight, if any, and takes its answer. */
  void idle() {
    if (inFlight != null) {
      Workflow.await(inFlight::isCompleted);
      settle();
    }
  }

  /** One word for the TandemPhase search attribute. */
  String phase(NodeSetStatusView st) {
    if (s.deleting) {
      return "deleting";
    }
    if (s.invalidMessage != null || PodRejection.active(s)) {
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
        + s.desired()
        + " ready, "
        + st.updatedReplicas()
        + " at revision "
        + st.updateRevision();
  }
}
