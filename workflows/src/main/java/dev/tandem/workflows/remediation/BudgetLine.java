package dev.tandem.workflows.remediation;

import dev.tandem.workflows.remediation.BudgetStatus.Entry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The budget's line and holders, and the grant algorithm. Pure (no Temporal calls): the workflow
 * sends the grants this returns.
 *
 * <ol>
 *   <li>Scopes: each NodeSet a request names ({@code nodeset:<ns>/<name>}, limit {@code
 *       maxPerNodeSet}) and its topology domain if it has one ({@code domain:<label>=<value>},
 *       limit {@code maxPerDomain}). Each request carries its own limits (its NodeSet's policy).
 *   <li>Count the holders in every scope.
 *   <li>Walk the waiting requests in line order. Grant one when every one of its scopes has room
 *       (holders in that scope below the request's limit); it then counts in its scopes for the
 *       requests after it. A request blocked by a full scope keeps its place and does not block a
 *       later request whose scopes all have room (a full rack never stalls another rack). Within
 *       one scope, requests are granted in line order (first come, first served), because a later
 *       request of a full scope is blocked by the same full scope.
 *   <li>A request with no scope at all (no NodeSet, no domain) is granted at once.
 * </ol>
 */
final class BudgetLine {
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

  int indexOf(List<Entry> l, String k8sNode) {
    for (int i = 0; i < l.size(); i++) {
      if (l.get(i).request().k8sNode().equals(k8sNode)) {
        return i;
      }
    }
    return -1;
  }

  /** Removes the node from the holders and the line; records it in recent. False if unknown. */
  boolean release(String k8sNode, String note, Instant now) {
    int h = indexOf(holders, k8sNode);
    int w = indexOf(waiting, k8sNode);
    Entry gone = h >= 0 ? holders.remove(h) : w >= 0 ? waiting.remove(w) : null;
    if (gone == null) {
      return false;
    }
    recent.add(new Entry(gone.request(), now, note));
    while (recent.size() > RECENT_LIMIT) {
      recent.remove(0);
    }
    return true;
  }

  /** Grants what the budgets allow now (see the class comment); returns the granted requests. */
  List<SlotRequest> grant(Instant now) {
    Map<String, Integer> held = new HashMap<>();
    for (Entry e : holders) {
      for (String s : scopes(e.request()).keySet()) {
        held.merge(s, 1, Integer::sum);
      }
    }
    List<SlotRequest> granted = new ArrayList<>();
    List<Entry> still = new ArrayList<>();
    for (Entry e : waiting) {
      Map<String, Integer> scopes = scopes(e.request());
      String full = null;
      for (Map.Entry<String, Integer> s : scopes.entrySet()) {
        int n = held.getOrDefault(s.getKey(), 0);
        if (n >= s.getValue()) {
          full = s.getKey() + " full: " + n + "/" + s.getValue();
          break;
        }
      }
      if (full != null) {
        still.add(new Entry(e.request(), e.since(), full));
        continue;
      }
      for (String s : scopes.keySet()) {
        held.merge(s, 1, Integer::sum);
      }
      holders.add(new Entry(e.request(), now, "granted"));
      granted.add(e.request());
    }
    waiting.clear();
    waiting.addAll(still);
    return granted;
  }

  /** Scope name to limit, in a fixed order (NodeSets as given, then the domain). */
  static Map<String, Integer> scopes(SlotRequest r) {
    Map<String, Integer> m = new java.util.LinkedHashMap<>();
    for (String ns : r.nodeSets()) {
      m.put("NodeSet " + ns, r.maxPerNodeSet());
    }
    if (r.domain() != null && !r.domain().isBlank()) {
      m.put("domain " + r.domain(), r.maxPerDomain());
    }
    return m;
  }
}
