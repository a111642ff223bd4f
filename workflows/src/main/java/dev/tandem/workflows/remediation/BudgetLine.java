package dev.tandem.workflows.remediation;

import dev.tandem.workflows.remediation.BudgetStatus.Entry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The budget's line and holders, and the grant algorithm. Pure (no Temporal calls): the workflow
 * sends the grants this returns. A request is known by its {@link SlotRequest#key() key}: a
 * Kubernetes node may hold two slots at once, one for its remediation and one for its automatic
 * drain, and they count as one node.
 *
 * <ol>
 *   <li>Scopes: each NodeSet a request names (limit {@link SlotRequest#nodeSetLimit}: {@code
 *       maxPerNodeSet}, or by default one but never the NodeSet's last node), its topology domain
 *       if it has one ({@code <label>=<value>}, limit {@code maxPerDomain}) and the {@link #CLUSTER
 *       cluster} (limit {@code maxInCluster}, none when 0). Each request carries its own limits
 *       (its NodeSet's policy, the worker's cluster limit).
 *   <li>Count the distinct Kubernetes nodes of the holders in every scope (every holder counts in
 *       the cluster).
 *   <li>Walk the waiting requests in line order. Grant one when every one of its scopes has room
 *       (its Kubernetes node already counts there, or the scope's count is below the request's
 *       limit; its note names every full scope); its node then counts in its scopes for the
 *       requests after it. A request blocked by a full scope keeps its place and does not block a
 *       later request whose scopes all have room (a full rack never stalls another rack). Within
 *       one scope, requests are granted in line order (first come, first served), because a later
 *       request of a full scope is blocked by the same full scope.
 *   <li>A request with no scope at all (no NodeSet, no domain, no cluster limit) is granted at
 *       once.
 * </ol>
 */
final class BudgetLine {
  /** The cluster scope's name, as notes show it. */
  static final String CLUSTER = "cluster";

  /** How many finished nodes {@code recent} keeps. */
  static final int RECENT_LIMIT = 20;

  final List<Entry> holders = new ArrayList<>();
  final List<Entry> waiting = new ArrayList<>();
  final List<Entry> recent = new ArrayList<>();

  static BudgetLine from(BudgetStatus s) {
    BudgetLine b = new BudgetLine();
    if (s != null) {
      b.holders.addAll(s.holders());
      b.waiting.addAll(s.waiting());
      b.recent.addAll(s.recent());
    }
    return b;
  }

  BudgetStatus status() {
    return new BudgetStatus(holders, waiting, recent);
  }

  /** Position of the request known by {@code key} ({@link SlotRequest#key()}), or -1. */
  int indexOf(List<Entry> l, String key) {
    for (int i = 0; i < l.size(); i++) {
      if (l.get(i).request().key().equals(key)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Removes the request known by {@code key} from the holders and the line; records it in recent.
   * Returns the holder's entry, the waiting one, or null if unknown.
   */
  Entry release(String key, String note, Instant now) {
    int h = indexOf(holders, key);
    int w = indexOf(waiting, key);
    Entry gone = h >= 0 ? holders.remove(h) : w >= 0 ? waiting.remove(w) : null;
    if (gone == null) {
      return null;
    }
    recent.add(new Entry(gone.request(), now, note));
    while (recent.size() > RECENT_LIMIT) {
      recent.remove(0);
    }
    return gone;
  }

  /** Grants what the budgets allow now (see the class comment); returns the granted requests. */
  List<SlotRequest> grant(Instant now) {
    Map<String, Set<String>> held = new HashMap<>();
    for (Entry e : holders) {
      count(held, e.request());
    }
    List<SlotRequest> granted = new ArrayList<>();
    List<Entry> still = new ArrayList<>();
    for (Entry e : waiting) {
      List<String> full = new ArrayList<>();
      for (Map.Entry<String, Integer> s : scopes(e.request()).entrySet()) {
        Set<String> in = held.getOrDefault(s.getKey(), Set.of());
        int n = in.size();
        if (!in.contains(e.request().k8sNode()) && n >= s.getValue()) {
          full.add(
              s.getKey()
                  + " full: "
                  + n
                  + "/"
                  + s.getValue()
                  + (s.getValue() == 0 ? " (its last node stays in service)" : ""));
        }
      }
      if (!full.isEmpty()) {
        still.add(new Entry(e.request(), e.since(), String.join(", ", full)));
        continue;
      }
      count(held, e.request());
      holders.add(new Entry(e.request(), now, "granted"));
      granted.add(e.request());
    }
    waiting.clear();
    waiting.addAll(still);
    return granted;
  }

  private static void count(Map<String, Set<String>> held, SlotRequest r) {
    for (String s : scopes(r).keySet()) {
      held.computeIfAbsent(s, k -> new HashSet<>()).add(r.k8sNode());
    }
    held.computeIfAbsent(CLUSTER, k -> new HashSet<>()).add(r.k8sNode());
  }

  /**
   * Where the limits of the full scopes a note names are set: {@code spec.remediation.budget} (a
   * NodeSet, a domain), {@code TANDEM_CLUSTER_BUDGET} (the cluster), or both.
   */
  static String settingOf(String note) {
    String n = note == null ? "" : note;
    boolean cluster = n.startsWith(CLUSTER + " full") || n.contains(", " + CLUSTER + " full");
    boolean policy = n.startsWith("NodeSet ") || n.startsWith("domain ") || n.contains(", domain ");
    return policy && cluster
        ? "spec.remediation.budget, TANDEM_CLUSTER_BUDGET"
        : cluster ? "TANDEM_CLUSTER_BUDGET" : "spec.remediation.budget";
  }

  /**
   * The drains waiting for a slot, per NodeSet ({@code <ns>/<name>}) they would take nodes of: what
   * those NodeSets report as held back.
   */
  Map<String, List<Entry>> heldDrains() {
    Map<String, List<Entry>> m = new TreeMap<>();
    for (Entry e : waiting) {
      if (e.request().isDrain()) {
        for (String ns : e.request().nodeSets()) {
          m.computeIfAbsent(ns, k -> new ArrayList<>()).add(e);
        }
      }
    }
    return m;
  }

  /**
   * Scope name to limit, in a fixed order (NodeSets as given, then the domain, then the cluster
   * when the request has a cluster limit).
   */
  static Map<String, Integer> scopes(SlotRequest r) {
    Map<String, Integer> m = new java.util.LinkedHashMap<>();
    for (String ns : r.nodeSets()) {
      m.put("NodeSet " + ns, r.nodeSetLimit(ns));
    }
    if (r.domain() != null && !r.domain().isBlank()) {
      m.put("domain " + r.domain(), r.maxPerDomain());
    }
    if (r.maxInCluster() > 0) {
      m.put(CLUSTER, r.maxInCluster());
    }
    return m;
  }
}
