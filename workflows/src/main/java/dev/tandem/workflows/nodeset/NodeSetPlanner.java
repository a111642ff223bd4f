package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.nodeset.NodeSetState.Entry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The NodeSet's decisions as pure functions of its state, so they can be tested without Temporal.
 * "Available" is {@link NodeAvailability#available}: a node in phase ready that Slurm shows
 * drained, down or not responding is not available.
 *
 * <p>Scale-down victims: unavailable nodes first (they serve nobody), then idle ones (no job is
 * disturbed; the longest idle first when autoscaled), then the highest ordinal. Rolling update: see
 * {@link #rollingUpdates}; a node running a job is drained and waits like any other.
 */
public final class NodeSetPlanner {
  private NodeSetPlanner() {}

  /** Nodes that count toward replicas: not deleted and not on their way out. */
  public static List<Entry> active(Map<Integer, Entry> nodes) {
    List<Entry> out = new ArrayList<>();
    for (Entry e : nodes.values()) {
      if (!e.deleteSent && !deleted(e)) {
        out.add(e);
      }
    }
    return out;
  }

  public static boolean deleted(Entry e) {
    return e.report != null && e.report.phase() == NodePhase.DELETED;
  }

  /** The lowest ordinals not in use, {@code count} of them. */
  public static List<Integer> freeOrdinals(Map<Integer, Entry> nodes, int count) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; out.size() < count; i++) {
      Entry e = nodes.get(i);
      if (e == null) {
        out.add(i);
      }
    }
    return out;
  }

  /**
   * Which nodes to delete to get from {@code active} down to {@code replicas}; among idle nodes the
   * longest idle first ({@code idleSince}: the autoscaler's marks by pod, workflow ms; empty when
   * the NodeSet is not autoscaled).
   */
  static List<Entry> victims(List<Entry> active, int replicas, Map<String, Long> idleSince) {
    int excess = active.size() - replicas;
    if (excess <= 0) {
      return List.of();
    }
    List<Entry> sorted = new ArrayList<>(active);
    sorted.sort(
        Comparator.comparing((Entry e) -> NodeAvailability.available(e))
            .thenComparing(e -> !idle(e))
            .thenComparingLong(e -> idleSince.getOrDefault(e.pod, Long.MAX_VALUE))
            .thenComparing(Comparator.comparingInt((Entry e) -> e.ordinal).reversed()));
    return sorted.subList(0, excess);
  }

  /**
   * Rolling update: the nodes to send an update to now.
   *
   * <ol>
   *   <li>A node whose report shows it moving to another revision than the update revision gets the
   *       update revision too (cancels a superseded or rolled-back update), free of budget.
   *   <li>Nodes not at the update revision that were not yet told are candidates, idle ones first,
   *       then by highest ordinal.
   *   <li>Budget = maxUnavailable minus the nodes already out of service: not available (an
   *       administrator's drain, a DOWN or not-responding node count), or told and not yet back at
   *       the update revision. So a rollout waits rather than taking another node while one is out.
   *   <li>A candidate that is itself unavailable costs nothing (it is out of service already) and
   *       is updated even when the budget is spent; an available candidate is taken only while
   *       budget is left, and spends one.
   * </ol>
   */
  static List<Entry> rollingUpdates(
      Collection<Entry> active, String updateRevision, int maxUnavailable) {
    List<Entry> out = new ArrayList<>();
    List<Entry> candidates = new ArrayList<>();
    int unavailable = 0;
    for (Entry e : active) {
      boolean told = updateRevision.equals(e.updateSentFor) && e.updateSentImmediate;
      String rev = revision(e);
      if (!NodeAvailability.available(e) || (told && !updateRevision.equals(rev))) {
        unavailable++;
      }
      if (told) {
        continue;
      }
      if (updateRevision.equals(rev)) {
        if (e.report != null && !updateRevision.equals(e.report.targetRevision())) {
          out.add(e);
        }
      } else {
        candidates.add(e);
      }
    }
    candidates.sort(
        Comparator.comparing((Entry e) -> !idle(e))
            .thenComparing(Comparator.comparingInt((Entry e) -> e.ordinal).reversed()));
    int budget = maxUnavailable - unavailable;
    for (Entry e : candidates) {
      if (!NodeAvailability.available(e)) {
        out.add(e);
      } else if (budget > 0) {
        out.add(e);
        budget--;
      }
    }
    return out;
  }

  /** OnDelete: every node not yet told about the update revision. */
  public static List<Entry> deferredUpdates(Collection<Entry> active, String updateRevision) {
    List<Entry> out = new ArrayList<>();
    for (Entry e : active) {
      if (!updateRevision.equals(e.updateSentFor)
          && (!updateRevision.equals(revision(e))
              || (e.report != null && !updateRevision.equals(e.report.targetRevision())))) {
        out.add(e);
      }
    }
    return out;
  }

  /** The revision the node runs, as last reported (or as it was started). */
  public static String revision(Entry e) {
    NodeReport r = e.report;
    if (r != null && r.revision() != null) {
      return r.revision();
    }
    return e.startRevision;
  }

  /** Idle in Slurm: base state idle (a node with jobs shows allocated or mixed). */
  public static boolean idle(Entry e) {
    NodeReport r = e.report;
    return r != null
        && r.slurmState() != null
        && r.slurmState().startsWith("idle")
        && !Objects.equals(r.busy(), Boolean.TRUE);
  }
}
