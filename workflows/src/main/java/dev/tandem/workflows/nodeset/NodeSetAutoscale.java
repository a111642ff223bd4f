package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.model.Autoscaling;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetDemand;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.support.ActivityStubs;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import org.slf4j.Logger;

/**
 * What an autoscaled NodeSet's pass does with the {@link Autoscaler}'s decision:
 *
 * <ol>
 *   <li>Not autoscaled (no {@code spec.autoscaling}): forget the autoscaler's memory; {@code
 *       spec.replicas} is the desired count.
 *   <li>Autoscaled: the autoscaler's count is the desired count ({@link NodeSetState#desired}),
 *       from the pass it is decided in, starting from {@code spec.replicas} when autoscaling is
 *       switched on. Each change is an event {@code Autoscaled} on the NodeSet with its reason.
 *   <li>The count is then written to {@code spec.replicas}, so that {@code kubectl get} and any
 *       reader of the scale subresource see it. A {@code spec.replicas} that differs from it and is
 *       not the autoscaler's earlier write was set by someone else ({@code kubectl scale}, KEDA):
 *       it never moves a node, is written back over, and says so (Warning event {@code
 *       ReplicasOverridden}). "Someone else" is a spec of a newer generation than the one the last
 *       write was made on, with another count. A failed write is tried again on the next pass.
 * </ol>
 */
final class NodeSetAutoscale {
  private static final Logger log = Workflow.getLogger(NodeSetAutoscale.class);

  private final NodeSetRef ref;
  private final NodeSetState s;

  NodeSetAutoscale(NodeSetRef ref, NodeSetState s) {
    this.ref = ref;
    this.s = s;
  }

  /** One pass (the spec is valid and the NodeSet is not being deleted). */
  void step() {
    Autoscaling a = s.spec.autoscaling();
    AutoscaleState st = s.auto;
    if (a == null) {
      if (st.replicas != null) {
        s.auto = new AutoscaleState();
      }
      return;
    }
    long now = Workflow.currentTimeMillis();
    int spec = s.spec.replicas();
    int base = st.replicas != null ? st.replicas : spec;
    Autoscaler.Decision d = Autoscaler.decide(a, base, NodeSetPlanner.active(s.nodes), st, now);
    if (d != null) {
      st.replicas = d.replicas();
      st.reason = d.reason();
      st.decidedAtMillis = now;
      st.writePending = true;
      event("Normal", "Autoscaled", "replicas " + base + " → " + d.replicas() + ": " + d.reason());
    } else if (st.replicas == null) {
      st.replicas = base;
    }
    if (spec != st.replicas && !st.writePending && s.spec.generation() > st.writtenGeneration) {
      // A spec newer than the autoscaler's last write, with another count: someone else's.
      st.writePending = true;
      event(
          "Warning",
          "ReplicasOverridden",
          "spec.replicas "
              + spec
              + " was set outside the autoscaler and is set back to "
              + st.replicas
              + ": with spec.autoscaling, change minReplicas or maxReplicas instead");
    }
    if (st.writePending) {
      write(st.replicas);
    }
  }

  /**
   * Condition {@code Autoscaled} of an autoscaled NodeSet (null otherwise): True, with the count,
   * its bounds, the last decision's reason and what the queue asks now.
   */
  static Condition condition(NodeSetState s) {
    Autoscaling a = s.spec == null ? null : s.spec.autoscaling();
    if (a == null) {
      return null;
    }
    AutoscaleState st = s.auto;
    NodeSetDemand d = st.demand;
    String queue =
        d == null
            ? "no report of Slurm's queue yet"
            : "queue: "
                + d.jobs()
                + " job(s) ask for "
                + d.nodes()
                + " node(s), "
                + d.busy()
                + " node(s) busy"
                + (d.unfit() > 0
                    ? ", " + d.unfit() + " job(s) no node of this NodeSet can run"
                    : "");
    String unplaced = null;
    int waiting = 0;
    for (NodeSetState.Entry e : NodeSetPlanner.active(s.nodes)) {
      if (e.report != null
          && e.report.phase() == NodePhase.PROVISIONING
          && e.report.problem() != null) {
        waiting++;
        unplaced = unplaced == null ? e.report.problem() : unplaced;
      }
    }
    if (waiting > 0) {
      // Starting nodes are part of the count: the autoscaler asks for no more while they wait.
      queue +=
          "; " + waiting + " node(s) wait for Kubernetes to start their pod (" + unplaced + ")";
    }
    return NodeSetConditions.cond(
        Condition.AUTOSCALED,
        true,
        st.reason == null ? "Steady" : "Scaled",
        s.desired()
            + " replicas (min "
            + a.minReplicas()
            + ", max "
            + a.maxReplicas()
            + ")"
            + (st.reason == null ? "" : "; last change: " + st.reason)
            + "; "
            + queue);
  }

  private void write(int replicas) {
    try {
      ActivityStubs.kubeFewAttempts("set replicas of " + ref)
          .setNodeSetReplicas(ref, s.spec.uid(), replicas);
      s.auto.writePending = false;
      // The write makes a newer generation; until its specChanged arrives the spec shows the old
      // count, which is not someone else's.
      s.auto.writtenGeneration = s.spec.generation();
    } catch (ActivityFailure e) {
      log.warn("cannot set replicas of {} to {}: {}", ref, replicas, e.getMessage());
    }
  }

  private void event(String type, String reason, String message) {
    EventRequest e =
        new EventRequest(ref.namespace(), "NodeSet", ref.name(), type, reason, message);
    try {
      ActivityStubs.kube("event " + reason + " on " + ref).recordEvent(e);
    } catch (ActivityFailure f) {
      log.warn("cannot record event {} on {}: {}", reason, ref, f.getMessage());
    }
  }
}
