package dev.tandem.workflows.nodeset;

import static dev.tandem.workflows.nodeset.NodeSetConditions.cond;

import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.SlurmCounts;
import dev.tandem.workflows.nodeset.NodeSetState.Entry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Computes a NodeSet's status (counts and conditions) from what its nodes reported and what the
 * watchers said about Slurm and Kubernetes. Pure. readyReplicas counts the available nodes ({@link
 * NodeAvailability}) that are not being removed, and the Ready and Progressing conditions come from
 * {@link NodeSetConditions}.
 */
final class NodeSetStatusCalculator {
  private NodeSetStatusCalculator() {}

  static NodeSetStatusView compute(NodeSetState s, String selector, Instant now) {
    List<Entry> existing = new ArrayList<>();
    for (Entry e : s.nodes.values()) {
      if (!NodeSetPlanner.deleted(e)) {
        existing.add(e);
      }
    }
    String updateRevision = s.spec == null ? null : s.spec.template().revision();
    int desired = s.deleting ? 0 : s.desired();
    int ready = 0;
    int updated = 0;
    int idle = 0;
    int allocated = 0;
    int draining = 0;
    int drained = 0;
    int down = 0;
    Map<String, Integer> revisions = new HashMap<>();
    Map<String, List<String>> problems = new LinkedHashMap<>();
    for (Entry e : existing) {
      NodeReport r = e.report;
      String rev = NodeSetPlanner.revision(e);
      if (!e.deleteSent && NodeAvailability.available(e)) {
        ready++;
      }
      if (rev != null && rev.equals(updateRevision)) {
        updated++;
      } else if (rev != null) {
        revisions.merge(rev, 1, Integer::sum);
      }
      if (r != null && r.problem() != null) {
        problems
            .computeIfAbsent(NodeSetConditions.oneLine(r.problem()), k -> new ArrayList<>())
            .add(e.pod);
      }
      String st = r == null ? "unknown" : r.slurmState();
      boolean drain = st.contains("+DRAIN");
      boolean busy = r != null && Boolean.TRUE.equals(r.busy());
      if (st.startsWith("unknown")
          || st.startsWith("down")
          || st.startsWith("future")
          || st.contains("NOT_RESPONDING")) {
        down++;
      } else if (drain) {
        if (busy || st.startsWith("allocated") || st.startsWith("mixed")) {
          draining++;
        } else {
          drained++;
        }
      } else if (st.startsWith("idle")) {
        idle++;
      } else {
        allocated++;
      }
    }
    String current = updateRevision;
    if (!revisions.isEmpty()) {
      current =
          revisions.entrySet().stream()
              .max(
                  Map.Entry.<String, Integer>comparingByValue()
                      .thenComparing(Map.Entry.comparingByKey()))
              .get()
              .getKey();
    }
    List<Condition> conds = new ArrayList<>();
    conds.add(NodeSetConditions.ready(s, desired, ready, NodeSetPlanner.active(s.nodes)));
    conds.add(NodeSetConditions.progressing(s, desired, existing, updated, updateRevision));
    boolean podRejected = PodRejection.active(s);
    if (podRejected && !s.deleting) {
      // The rollout of the spec's revision stopped for good; Ready says how the nodes serve.
      conds.set(
          1,
          cond(
              Condition.PROGRESSING,
              false,
              PodRejection.REASON,
              "rollout of revision " + updateRevision + " stopped: the cluster rejected its pod"));
    }
    long nowMillis = now.toEpochMilli();
    conds.add(NodeSetConditions.degraded(s, problems, nowMillis));
    conds.add(NodeSetConditions.invalidSpec(s));
    conds.add(
        NodeSetConditions.reachable(Condition.SLURM_REACHABLE, ClusterHealth.SLURM, s, nowMillis));
    conds.add(
        NodeSetConditions.reachable(
            Condition.KUBERNETES_REACHABLE, ClusterHealth.KUBERNETES, s, nowMillis));
    conds.add(MassFault.condition(s));
    Condition autoscaled = NodeSetAutoscale.condition(s);
    if (autoscaled != null) {
      conds.add(autoscaled);
    }
    List<Condition> withTimes = new ArrayList<>();
    for (Condition c : conds) {
      Condition old = s.written == null ? null : s.written.condition(c.type());
      Instant t = old != null && old.status().equals(c.status()) ? old.lastTransitionTime() : now;
      withTimes.add(new Condition(c.type(), c.status(), c.reason(), c.message(), t));
    }
    long generation = s.latest == null ? 0 : s.latest.generation();
    return new NodeSetStatusView(
        existing.size(),
        ready,
        updated,
        new SlurmCounts(idle, allocated, draining, drained, down),
        current,
        updateRevision,
        generation,
        selector,
        withTimes);
  }

  /** Equal apart from condition transition times. */
  public static boolean same(NodeSetStatusView a, NodeSetStatusView b) {
    if (a == null || b == null) {
      return a == b;
    }
    if (a.replicas() != b.replicas()
        || a.readyReplicas() != b.readyReplicas()
        || a.updatedReplicas() != b.updatedReplicas()
        || !a.slurm().equals(b.slurm())
        || !java.util.Objects.equals(a.currentRevision(), b.currentRevision())
        || !java.util.Objects.equals(a.updateRevision(), b.updateRevision())
        || a.observedGeneration() != b.observedGeneration()
        || !java.util.Objects.equals(a.selector(), b.selector())
        || a.conditions().size() != b.conditions().size()) {
      return false;
    }
    for (int i = 0; i < a.conditions().size(); i++) {
      if (!a.conditions().get(i).sameAs(b.conditions().get(i))) {
        return false;
      }
    }
    return true;
  }
}
