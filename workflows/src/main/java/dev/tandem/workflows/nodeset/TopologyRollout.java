package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.nodeset.NodeSetState.Entry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A rolling update that goes one topology domain at a time ({@code
 * updateStrategy.rollingUpdate.topologyKey}): a pure function of the NodeSet's nodes, the label
 * value of each Kubernetes node (read by an activity), and the domain it rolled last.
 *
 * <ol>
 *   <li>A node whose report shows it moving to another revision than the update revision gets the
 *       update revision too, free of budget (as in {@link NodeSetPlanner#rollingUpdates}).
 *   <li>Each node's domain: the one recorded when it was told to update to this revision (a
 *       replacement pod that lands elsewhere still counts where it was taken from), else the
 *       label's value on the Kubernetes node its pod runs on. No pod node, an unlabelled node or a
 *       node the read did not return: domain {@code ""}, which always comes last.
 *   <li>Out of service, per domain: not available ({@link NodeAvailability}), or told and not yet
 *       at the update revision. Candidates: not at the update revision and not told.
 *   <li>The domain to roll: the previous one while it has a candidate or a node told and not yet at
 *       the update revision; else the first domain with a candidate, domains where no node runs a
 *       job first (idleFirst; a node that is not idle counts as running one), then by name.
 *   <li>In that domain, idle candidates first, then the highest ordinal: an unavailable one is
 *       updated free (it is out of service already); an available one only while fewer than
 *       maxUnavailable (a count, or a percentage of the domain's nodes rounded down, at least 1) of
 *       the domain are out, and only while no node of another domain is out. So no available node
 *       is ever taken while a node of another domain is out: nodes of two domains are never out at
 *       once because of the rollout.
 *   <li>An unavailable candidate of another domain is updated free too: it is out already, and
 *       updating it can only bring it back.
 * </ol>
 */
final class TopologyRollout {
  private TopologyRollout() {}

  /** The domain of nodes without a label value (or unscheduled): rolled last. */
  static final String NO_DOMAIN = "";

  /**
   * One pass's decision.
   *
   * @param domain the domain being rolled (remember it for the next pass), or null when done
   * @param updates the nodes to send the update to now
   * @param domains each update's domain, by pod (to record with the update)
   */
  record Plan(String domain, List<Entry> updates, Map<String, String> domains) {}

  /**
   * Whether a rollout to {@code rev} still has anything to do (a candidate or a node in flight).
   */
  static boolean pending(Collection<Entry> active, String rev) {
    for (Entry e : active) {
      if (!rev.equals(NodeSetPlanner.revision(e))
          || (e.report != null && !rev.equals(e.report.targetRevision()))) {
        return true;
      }
    }
    return false;
  }

  /** The Kubernetes nodes the pods run on, sorted: what the label read needs. */
  static List<String> k8sNodes(Collection<Entry> active) {
    TreeSet<String> out = new TreeSet<>();
    for (Entry e : active) {
      if (e.report != null && e.report.k8sNode() != null && !e.report.k8sNode().isBlank()) {
        out.add(e.report.k8sNode());
      }
    }
    return List.copyOf(out);
  }

  /**
   * @param labels the topology label's value by Kubernetes node name (nodes without it absent)
   * @param previous the domain rolled on the last pass, or null
   * @param idleFirst domains with no running job first (else by name only)
   */
  static Plan plan(
      Collection<Entry> active,
      String rev,
      String maxUnavailable,
      boolean idleFirst,
      Map<String, String> labels,
      String previous) {
    List<Entry> out = new ArrayList<>();
    Map<String, String> domains = new TreeMap<>();
    Map<String, Integer> size = new TreeMap<>();
    Map<String, Integer> outOfService = new TreeMap<>();
    Map<String, Boolean> busy = new TreeMap<>();
    Map<String, List<Entry>> candidates = new TreeMap<>();
    Map<String, Integer> inFlight = new TreeMap<>();
    for (Entry e : active) {
      boolean told = told(e, rev);
      String d = told && e.rollDomain != null ? e.rollDomain : observed(e, labels);
      domains.put(e.pod, d);
      size.merge(d, 1, Integer::sum);
      busy.merge(d, !NodeSetPlanner.idle(e), Boolean::logicalOr);
      boolean moving = told && !rev.equals(NodeSetPlanner.revision(e));
      if (!NodeAvailability.available(e) || moving) {
        outOfService.merge(d, 1, Integer::sum);
      }
      if (moving) {
        inFlight.merge(d, 1, Integer::sum);
      }
      if (told) {
        continue;
      }
      if (rev.equals(NodeSetPlanner.revision(e))) {
        if (e.report != null && !rev.equals(e.report.targetRevision())) {
          out.add(e); // step 1
        }
      } else {
        candidates.computeIfAbsent(d, k -> new ArrayList<>()).add(e);
      }
    }
    String domain = previous;
    if (domain == null || (!candidates.containsKey(domain) && !inFlight.containsKey(domain))) {
      domain = next(candidates.keySet(), busy, idleFirst);
    }
    if (domain == null) {
      return new Plan(null, out, pick(domains, out));
    }
    final String current = domain;
    boolean otherOut = outOfService.entrySet().stream().anyMatch(x -> !x.getKey().equals(current));
    int limit =
        NodeSetSpecValidator.resolveMaxUnavailable(maxUnavailable, size.getOrDefault(current, 0));
    int budget = limit - outOfService.getOrDefault(current, 0);
    for (Map.Entry<String, List<Entry>> c : candidates.entrySet()) {
      List<Entry> list = new ArrayList<>(c.getValue());
      list.sort(
          Comparator.comparing((Entry e) -> !NodeSetPlanner.idle(e))
              .thenComparing(Comparator.comparingInt((Entry e) -> e.ordinal).reversed()));
      for (Entry e : list) {
        if (!NodeAvailability.available(e)) {
          out.add(e); // steps 5 and 6: out of service already
        } else if (c.getKey().equals(current) && !otherOut && budget > 0) {
          out.add(e);
          budget--;
        }
      }
    }
    return new Plan(current, out, pick(domains, out));
  }

  /** The next domain with a candidate: idle ones first (idleFirst), then by name, "" last. */
  private static String next(
      Collection<String> withCandidates, Map<String, Boolean> busy, boolean idleFirst) {
    return withCandidates.stream()
        .min(
            Comparator.comparing((String d) -> d.equals(NO_DOMAIN))
                .thenComparing(d -> idleFirst && busy.getOrDefault(d, true))
                .thenComparing(Comparator.naturalOrder()))
        .orElse(null);
  }

  private static boolean told(Entry e, String rev) {
    return rev.equals(e.updateSentFor) && e.updateSentImmediate;
  }

  /** The label value of the Kubernetes node the pod runs on, or {@link #NO_DOMAIN}. */
  static String observed(Entry e, Map<String, String> labels) {
    if (e.report == null || e.report.k8sNode() == null) {
      return NO_DOMAIN;
    }
    String v = labels.get(e.report.k8sNode());
    return v == null ? NO_DOMAIN : v;
  }

  private static Map<String, String> pick(Map<String, String> domains, List<Entry> updates) {
    Map<String, String> out = new TreeMap<>();
    for (Entry e : updates) {
      out.put(e.pod, domains.get(e.pod));
    }
    return out;
  }
}
