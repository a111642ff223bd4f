package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeReport;
import dev.tandem.workflows.nodeset.NodeSetState.Entry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The NodeSet's conditions: each message says the same as the numbers and names what keeps the
 * NodeSet from being fine.
 *
 * <ul>
 *   <li>Ready: True iff at least {@code replicas} nodes are available (see {@link
 *       NodeAvailability}), the spec is valid and the NodeSet is not being deleted. The message
 *       counts them and names up to three nodes that do not serve, with why.
 *   <li>Progressing: ScalingUp, ScalingDown (naming the nodes still on their way out),
 *       RollingUpdate, NodesSettling (nodes in a transitional phase), or Stable.
 *   <li>Degraded: every problem the nodes report, each once, with the nodes that have it.
 *   <li>InvalidSpec: every reason the spec is not rolled out, each once: the latest spec is
 *       invalid, and the spec in force has a pod the cluster refused ({@link PodRejection}). A
 *       later invalid spec does not hide an earlier refusal that still holds.
 *   <li>SlurmReachable, KubernetesReachable: the watchers' last {@code clusterHealth} report;
 *       Unknown before the first one and when the last is older than {@link #HEALTH_STALE_AFTER}.
 *       While one is False the NodeSet is also Degraded ({@link NodeSetStatusCalculator}).
 * </ul>
 */
final class NodeSetConditions {
  private NodeSetConditions() {}

  /** At most this many nodes are named in one message. */
  static final int MAX_LISTED = 3;

  /**
   * A health report older than this (workflow time) no longer says anything: the watchers re-send
   * every minute or so, so three missed reports mean they are not running or cannot reach Temporal.
   */
  static final Duration HEALTH_STALE_AFTER = Duration.ofMinutes(3);

  static Condition ready(NodeSetState s, int desired, int ready, List<Entry> active) {
    if (s.deleting) {
      return cond(Condition.READY, false, "Deleting", "the NodeSet is being deleted");
    }
    if (s.spec == null) {
      return cond(Condition.READY, false, "NoValidSpec", "no valid spec has been seen yet");
    }
    List<String> out = new ArrayList<>();
    for (Entry e : active) {
      if (!NodeAvailability.available(e)) {
        out.add(e.pod + ": " + NodeAvailability.whyNot(e));
      }
    }
    boolean ok = ready >= desired;
    String msg = ready + "/" + desired + " nodes ready" + (out.isEmpty() ? "" : "; " + list(out));
    return cond(Condition.READY, ok, ok ? "AllNodesReady" : "NodesNotReady", msg);
  }

  static Condition progressing(
      NodeSetState s, int desired, List<Entry> existing, int updated, String updateRevision) {
    if (s.deleting) {
      return cond(
          Condition.PROGRESSING, true, "Deleting", existing.size() + " nodes left to delete");
    }
    if (s.spec == null) {
      return cond(Condition.PROGRESSING, false, "NoValidSpec", "waiting for a valid spec");
    }
    List<Entry> active = NodeSetPlanner.active(s.nodes);
    if (active.size() < desired) {
      return cond(
          Condition.PROGRESSING,
          true,
          "ScalingUp",
          "scaling up from " + active.size() + " to " + desired);
    }
    List<String> leaving = new ArrayList<>();
    for (Entry e : existing) {
      if (e.deleteSent) {
        leaving.add(e.pod + " " + phase(e) + jobs(e.report));
      }
    }
    if (!leaving.isEmpty() || active.size() > desired) {
      return cond(
          Condition.PROGRESSING,
          true,
          "ScalingDown",
          "scaling down from "
              + existing.size()
              + " to "
              + desired
              + (leaving.isEmpty() ? "" : "; waiting for " + list(leaving)));
    }
    if (updated < existing.size()) {
      return cond(
          Condition.PROGRESSING,
          true,
          "RollingUpdate",
          updated + "/" + existing.size() + " nodes at revision " + updateRevision);
    }
    List<String> settling = new ArrayList<>();
    for (Entry e : active) {
      if (e.report == null || e.report.phase() != NodePhase.READY) {
        settling.add(e.pod + " " + phase(e));
      }
    }
    if (!settling.isEmpty()) {
      return cond(
          Condition.PROGRESSING,
          true,
          "NodesSettling",
          settling.size()
              + " of "
              + active.size()
              + " nodes not in service yet: "
              + list(settling));
    }
    return cond(Condition.PROGRESSING, false, "Stable", "all nodes at revision " + updateRevision);
  }

  /** Degraded, from each distinct problem (one line) to the nodes that report it, in node order. */
  /**
   * Degraded: True while Slurm or Kubernetes cannot be reached (the nodes' states are then as last
   * seen, and nothing waiting on them moves) or a node reports a problem; the reason names the
   * first of these, the message all: each distinct node problem once, with the nodes that have it.
   */
  static Condition degraded(NodeSetState s, Map<String, List<String>> problems, long nowMillis) {
    List<String> why = new ArrayList<>();
    String reason = null;
    String slurm = unreachable(ClusterHealth.SLURM, s, nowMillis);
    if (slurm != null) {
      reason = "SlurmUnreachable";
      why.add("Slurm unreachable, node states as last seen: " + oneLine(slurm));
    }
    String k8s = unreachable(ClusterHealth.KUBERNETES, s, nowMillis);
    if (k8s != null) {
      reason = reason == null ? "KubernetesUnreachable" : reason;
      why.add("Kubernetes unreachable: " + oneLine(k8s));
    }
    if (!problems.isEmpty()) {
      reason = reason == null ? "NodeProblems" : reason;
      List<String> lines = new ArrayList<>();
      problems.forEach((problem, pods) -> lines.add(names(pods) + ": " + problem));
      why.add(list(lines));
    }
    if (reason == null) {
      return cond(Condition.DEGRADED, false, "NoProblems", "no node reports a problem");
    }
    return cond(Condition.DEGRADED, true, reason, String.join("; ", why));
  }

  /** InvalidSpec: True while the latest spec is invalid or the spec in force has a refused pod. */
  static Condition invalidSpec(NodeSetState s) {
    boolean rejected = PodRejection.active(s);
    if (s.invalidMessage == null && !rejected) {
      return cond(Condition.INVALID_SPEC, false, "Valid", "the spec is valid");
    }
    List<String> why = new ArrayList<>();
    if (s.invalidMessage != null) {
      why.add(s.invalidMessage);
    }
    if (rejected) {
      why.add(PodRejection.message(s));
    }
    String reason = s.invalidMessage != null ? "InvalidSpec" : PodRejection.REASON;
    return cond(Condition.INVALID_SPEC, true, reason, String.join("; ", why));
  }

  /** SlurmReachable or KubernetesReachable, from the watchers' report on {@code component}. */
  static Condition reachable(String type, String component, NodeSetState s, long nowMillis) {
    ClusterHealth h = s.health.get(component);
    Long heard = s.healthHeardMillis.get(component);
    if (h == null || heard == null) {
      return new Condition(
          type, Condition.UNKNOWN, "NoReport", "no report from the watchers yet", null);
    }
    if (nowMillis - heard > HEALTH_STALE_AFTER.toMillis()) {
      return new Condition(
          type,
          Condition.UNKNOWN,
          "ReportStale",
          "no report from the watchers for more than "
              + HEALTH_STALE_AFTER.toMinutes()
              + " minutes; the last said "
              + (h.reachable() ? "reachable" : "unreachable")
              + ": "
              + h.message(),
          null);
    }
    return cond(type, h.reachable(), h.reachable() ? "Reachable" : "Unreachable", h.message());
  }

  /**
   * The watchers' message while their fresh report says {@code component} cannot be reached (the
   * reachable condition is False), else null: Unknown (no report, or a stale one) is not an outage.
   */
  static String unreachable(String component, NodeSetState s, long nowMillis) {
    ClusterHealth h = s.health.get(component);
    Long heard = s.healthHeardMillis.get(component);
    if (h == null
        || heard == null
        || h.reachable()
        || nowMillis - heard > HEALTH_STALE_AFTER.toMillis()) {
      return null;
    }
    return h.message();
  }

  /**
   * Workflow time (ms) at which the freshest health report goes stale and a condition turns
   * Unknown, or {@link Long#MAX_VALUE} if none will: the workflow wakes then to say so.
   */
  static long nextStaleMillis(NodeSetState s, long nowMillis) {
    long next = Long.MAX_VALUE;
    for (Long heard : s.healthHeardMillis.values()) {
      long at = heard + HEALTH_STALE_AFTER.toMillis() + 1;
      if (at > nowMillis) {
        next = Math.min(next, at);
      }
    }
    return next;
  }

  private static String phase(Entry e) {
    return e.report == null ? "starting" : e.report.phase().label();
  }

  private static String jobs(NodeReport r) {
    if (r == null || r.busy() == null) {
      return " (jobs unknown)";
    }
    return r.busy() ? " (jobs running)" : "";
  }

  /** Up to {@link #MAX_LISTED} names, then how many more: {@code a, b, c and 2 more}. */
  static String names(List<String> names) {
    String shown = String.join(", ", names.subList(0, Math.min(MAX_LISTED, names.size())));
    return names.size() > MAX_LISTED
        ? shown + " and " + (names.size() - MAX_LISTED) + " more"
        : shown;
  }

  /** Up to {@link #MAX_LISTED} items, then how many more. */
  static String list(List<String> items) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < Math.min(MAX_LISTED, items.size()); i++) {
      b.append(i == 0 ? "" : "; ").append(items.get(i));
    }
    if (items.size() > MAX_LISTED) {
      b.append("; and ").append(items.size() - MAX_LISTED).append(" more");
    }
    return b.toString();
  }

  /** Longest condition message line kept. */
  static final int MAX_LINE = 200;

  /**
   * One line of at most {@link #MAX_LINE} characters: the first line, whitespace collapsed. A
   * node's problem may carry a client's whole exception text (kilobytes, several lines); a
   * condition is read in {@code kubectl get -o wide} and must stay short.
   */
  static String oneLine(String s) {
    if (s == null) {
      return null;
    }
    int nl = s.indexOf('\n');
    String line = (nl >= 0 ? s.substring(0, nl) : s).replaceAll("\\s+", " ").trim();
    return line.length() <= MAX_LINE ? line : line.substring(0, MAX_LINE - 3) + "...";
  }

  static Condition cond(String type, boolean status, String reason, String message) {
    return new Condition(type, status ? Condition.TRUE : Condition.FALSE, reason, message, null);
  }
}
