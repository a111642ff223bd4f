package dev.tandem.workflows.nodeset;

import dev.tandem.workflows.model.Autoscaling;
import dev.tandem.workflows.model.NodeSetDemand;
import dev.tandem.workflows.nodeset.NodeSetState.Entry;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The replica count of an autoscaled NodeSet ({@code spec.autoscaling}), as pure functions of its
 * state and the workflow's clock, so that every case is tested without Temporal.
 *
 * <ol>
 *   <li><b>Idle clock.</b> Every pass notes since when each active node has been idle in Slurm
 *       ({@link #idleInSlurm}); a node that is not (drained by an administrator, down, not
 *       responding, completing, busy), or gone, loses its mark. The marks live in the workflow's
 *       state, so a worker restart does not reset them.
 *   <li><b>Demand.</b> From the watchers' one job listing ({@link NodeSetDemand}): the nodes the
 *       queue asks for (pending jobs on the NodeSet's partitions that wait for resources and that
 *       its nodes can run) and the NodeSet's nodes that run a job. The asked nodes count once they
 *       have stood for {@code scaleUpDelay}: a job that Slurm is about to place on a node freeing
 *       up adds nothing.
 *   <li><b>Up.</b> The work needs {@code busy + asked} nodes. When that is more than the replicas
 *       the autoscaler last set, it asks for that many: idle nodes and those still starting are
 *       part of the replicas, so a job too wide for the idle nodes alone adds only what it lacks,
 *       and nodes started for a job are not asked for twice while they start. Both figures come
 *       from one listing, so a job that just started on its new nodes is not counted twice either.
 *   <li><b>Down.</b> With no demand at all, each node idle for {@code idleTime} is one replica
 *       less. The NodeSet picks its victims idle nodes first and drains each in Slurm before its
 *       pod goes ({@link NodeSetPlanner#victims}), so a job that lands on a victim meanwhile runs
 *       to its end.
 *   <li><b>Bounds.</b> The result stays within {@code [minReplicas, maxReplicas]}; a bound moved
 *       past the replicas moves them at once.
 *   <li><b>One writer.</b> The count is the autoscaler's, kept in its state and written to {@code
 *       spec.replicas}; the decision starts from that number, never from a {@code spec.replicas}
 *       someone else wrote ({@code kubectl scale}, another autoscaler): such a value is written
 *       back over, with an event saying why.
 * </ol>
 */
final class Autoscaler {
  private Autoscaler() {}

  /** A new replica count and why, in one line. */
  record Decision(int replicas, String reason) {}

  /**
   * Brings the idle marks up to date ({@code now} in workflow millis) and decides.
   *
   * @param base the replicas the autoscaler set last, or the spec's when it never set any
   * @return the new count, or null when {@code base} stands
   */
  static Decision decide(Autoscaling a, int base, List<Entry> active, AutoscaleState st, long now) {
    markIdle(active, st, now);
    int expired = 0;
    for (Entry e : active) {
      Long since = st.idleSinceMillis.get(e.pod);
      if (since != null && now - since >= a.idleSeconds() * 1000) {
        expired++;
      }
    }
    int asked = st.demand == null ? 0 : Math.max(0, st.demand.nodes());
    int busy = st.demand == null ? 0 : Math.max(0, st.demand.busy());
    int ripe =
        asked > 0 && now - st.demandSinceMillis >= a.scaleUpDelaySeconds() * 1000 ? asked : 0;
    int target = base;
    String why = null;
    if (busy + ripe > base) {
      target = busy + ripe;
      why = st.demand.jobs() + " pending job(s) ask for " + asked + " node(s); " + busy + " busy";
    } else if (asked == 0 && expired > 0) {
      target = base - expired;
      why = expired + " node(s) idle for " + seconds(a.idleSeconds()) + " or more";
    }
    if (target > a.maxReplicas()) {
      target = a.maxReplicas();
      why = (why == null ? "" : why + "; ") + "held at maxReplicas " + a.maxReplicas();
    }
    if (target < a.minReplicas()) {
      target = a.minReplicas();
      why = (why == null ? "" : why + "; ") + "held at minReplicas " + a.minReplicas();
    }
    return target == base ? null : new Decision(target, why);
  }

  /** When the next decision may differ with no signal: an idle mark or the demand ripening. */
  static long nextMillis(Autoscaling a, AutoscaleState st, long now) {
    long next = Long.MAX_VALUE;
    for (long since : st.idleSinceMillis.values()) {
      long due = since + a.idleSeconds() * 1000;
      if (due > now) {
        next = Math.min(next, due);
      }
    }
    if (st.demand != null && st.demand.nodes() > 0) {
      long due = st.demandSinceMillis + a.scaleUpDelaySeconds() * 1000;
      if (due > now) {
        next = Math.min(next, due);
      }
    }
    return next;
  }

  /** A demand report: the delay counts from the first report that asked for nodes. */
  static void demand(AutoscaleState st, NodeSetDemand d, long now) {
    boolean asks = d.nodes() > 0;
    boolean asked = st.demand != null && st.demand.nodes() > 0;
    if (asks && !asked) {
      st.demandSinceMillis = now;
    }
    st.demand = d;
  }

  private static void markIdle(List<Entry> active, AutoscaleState st, long now) {
    Set<String> seen = new HashSet<>();
    for (Entry e : active) {
      if (idleInSlurm(e)) {
        st.idleSinceMillis.putIfAbsent(e.pod, now);
        seen.add(e.pod);
      }
    }
    st.idleSinceMillis.keySet().retainAll(seen);
  }

  /**
   * Phase ready, serving in Slurm ({@link NodeAvailability#available}: no drain, not down or not
   * responding), base state {@code idle} and not completing, no job known: flags that say nothing
   * of jobs ({@code DYNAMIC_NORM} of a dynamic node, {@code CLOUD}) do not matter.
   */
  static boolean idleInSlurm(Entry e) {
    if (!NodeAvailability.available(e) || !NodeSetPlanner.idle(e)) {
      return false;
    }
    String[] parts = e.report.slurmState().split("\\+");
    return parts[0].equals("idle") && !java.util.Arrays.asList(parts).contains("COMPLETING");
  }

  private static String seconds(long s) {
    return s % 60 == 0 ? (s / 60) + "m" : s + "s";
  }
}
