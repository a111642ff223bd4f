package dev.tandem.bench;

import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.model.TimelineEntry;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import io.temporal.client.WorkflowClient;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * One node's drain-update-register cycle in a rolling update, as its own workflow recorded it: from
 * its {@code update-requested} timeline entry to the {@code registered} entry that follows (back in
 * service at the new revision). This is the cycle the ideal rollout is made of ("waves ×
 * one node's measured drain-update-register cycle"): what one node takes, without the NodeSet's
 * orchestration between nodes, which is what the rollout ratio judges. The sampler's out-of-service
 * spell ({@link FleetSampler#spells()}) is shorter: it starts when Slurm shows the drain and ends
 * when Slurm serves the node, before the node workflow has seen either.
 */
final class NodeCycles {
  private NodeCycles() {}

  /**
   * Each node workflow's timeline, read once for both figures; a node gone or not answering has
   * none.
   */
  static List<List<TimelineEntry>> timelines(
      WorkflowClient client, Collection<String> nodeWorkflowIds) {
    List<List<TimelineEntry>> out = new ArrayList<>();
    for (String id : nodeWorkflowIds) {
      try {
        NodeStatus st = client.newWorkflowStub(NodeLifecycleWorkflow.class, id).status();
        if (st.timeline() != null) {
          out.add(st.timeline());
        }
      } catch (RuntimeException e) {
        // gone or not answering: no figure for it
      }
    }
    return out;
  }

  /** The cycles, in nanoseconds, of the nodes whose timeline holds one (one per node). */
  static List<Long> measure(List<List<TimelineEntry>> timelines) {
    List<Long> cycles = new ArrayList<>();
    for (List<TimelineEntry> t : timelines) {
      Long c = cycle(t);
      if (c != null) {
        cycles.add(c);
      }
    }
    return cycles;
  }

  /**
   * How long the rollout's freed slots stayed empty: with a budget of B, the k-th update request
   * (in time order, k ≥ B) could have been made when the (k−B)-th node came back ({@code
   * registered}); the gap between the two is the NodeSet's orchestration (the node's report, the
   * NodeSet's pass, the update signal), which the ideal leaves out. Nanoseconds, one per request
   * after the first B; empty without B+1 cycles.
   */
  static List<Long> refillGaps(List<List<TimelineEntry>> timelines, int budget) {
    List<Instant> requested = new ArrayList<>();
    List<Instant> back = new ArrayList<>();
    for (List<TimelineEntry> t : timelines) {
      Instant req = null;
      for (TimelineEntry e : t) {
        if ("update-requested".equals(e.event())) {
          req = e.at();
        } else if ("registered".equals(e.event()) && req != null) {
          requested.add(req);
          back.add(e.at());
          req = null;
        }
      }
    }
    requested.sort(null);
    back.sort(null);
    List<Long> gaps = new ArrayList<>();
    for (int k = budget; k < requested.size(); k++) {
      gaps.add(
          Math.max(
              0, java.time.Duration.between(back.get(k - budget), requested.get(k)).toNanos()));
    }
    return gaps;
  }

  /**
   * The rollout's two ends as the node workflows recorded them: the first {@code update-requested}
   * and the last {@code registered} at or after {@code since}; null where none.
   */
  static Instant[] ends(List<List<TimelineEntry>> timelines, Instant since) {
    Instant first = null;
    Instant last = null;
    for (List<TimelineEntry> t : timelines) {
      for (TimelineEntry e : t) {
        if (e.at() == null || e.at().isBefore(since)) {
          continue;
        }
        if ("update-requested".equals(e.event()) && (first == null || e.at().isBefore(first))) {
          first = e.at();
        } else if ("registered".equals(e.event()) && (last == null || e.at().isAfter(last))) {
          last = e.at();
        }
      }
    }
    return new Instant[] {first, last};
  }

  /** The last {@code update-requested} → next {@code registered}, in nanoseconds, or null. */
  static Long cycle(List<TimelineEntry> timeline) {
    if (timeline == null) {
      return null;
    }
    Instant requested = null;
    Long cycle = null;
    for (TimelineEntry e : timeline) {
      if ("update-requested".equals(e.event())) {
        requested = e.at();
      } else if ("registered".equals(e.event()) && requested != null) {
        cycle = java.time.Duration.between(requested, e.at()).toNanos();
        requested = null;
      }
    }
    return cycle;
  }
}
