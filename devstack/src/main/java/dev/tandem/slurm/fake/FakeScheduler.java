package dev.tandem.slurm.fake;

import dev.tandem.slurm.fake.FakeJob.Sharing;
import dev.tandem.slurm.fake.FakeJob.State;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The fake slurmctld's scheduler, run under the {@link FakeCluster}'s lock after every change and
 * on every tick. One pass:
 *
 * <ol>
 *   <li>Pending jobs are taken by partition priority tier (highest first), then by QOS priority
 *       (highest first, as {@code priority/multifactor} weighs it), then by job id. One that asks
 *       for more nodes than its partition has waits (reason PartitionNodeLimit).
 *   <li>For each, the candidate nodes are those of its partition that are schedulable (not drained,
 *       down or without slurmd) and not excluded. Its required nodes must all be candidates that
 *       fit; the rest of its node count is filled first-fit in node order.
 *   <li>A node fits when its free CPUs, memory and GRES cover the job's per-node request and
 *       sharing allows: a {@code shared:none} job needs an empty node and then holds it whole; a
 *       {@code shared:user} job shares only with the same user's jobs (both ways).
 *   <li>If the job does not fit and jobs of QOS its QOS may preempt run ({@code preempt/qos},
 *       {@link FakeAccounting}), the fit is tried again as if those jobs were gone. If it fits
 *       then, those jobs on the chosen nodes are preempted ({@code preempt_time} set): requeued to
 *       PENDING (restart count + 1, reason BeginTime) when the job allows requeue (every QOS has
 *       PreemptMode REQUEUE), else ended PREEMPTED; and the job starts at once (the fake has no
 *       KillWait).
 *   <li>A started job is RUNNING with its nodes; every change marks jobs and nodes changed.
 * </ol>
 */
final class FakeScheduler {
  /**
   * How long a requeued job waits (reason BeginTime) before it is eligible again. 22.05 was seen to
   * hold a requeued job for seconds before it ran again; without a hold the fake would restart it
   * within the same pass, and nobody could see it PENDING.
   */
  static final Duration REQUEUE_HOLD = Duration.ofSeconds(5);

  private final FakeCluster c;
  private final Map<String, List<FakeJob>> running = new HashMap<>();

  FakeScheduler(FakeCluster c) {
    this.c = c;
  }

  /** Running jobs on {@code node}, from an index kept by start and release (listings are hot). */
  Stream<FakeJob> jobsOn(String node) {
    List<FakeJob> there = running.get(node);
    return there == null ? Stream.empty() : there.stream();
  }

  int allocCpus(FakeNode n) {
    return wholeNode(n)
        ? n.cpus
        : Math.min(n.cpus, jobsOn(n.name).mapToInt(j -> j.cpusPerNode).sum());
  }

  long allocMemory(FakeNode n) {
    return jobsOn(n.name).mapToLong(j -> j.memoryMbPerNode).sum();
  }

  boolean wholeNode(FakeNode n) {
    return jobsOn(n.name).anyMatch(j -> j.sharing == Sharing.EXCLUSIVE);
  }

  /** GRES in use per name ({@code gpu}). */
  Map<String, Integer> gresUsed(FakeNode n, Predicate<FakeJob> counted) {
    Map<String, Integer> used = new java.util.LinkedHashMap<>();
    jobsOn(n.name)
        .filter(counted)
        .forEach(j -> j.gres.forEach((k, v) -> used.merge(Gres.name(k), v, Integer::sum)));
    return used;
  }

  void schedule() {
    List<FakeJob> pending =
        c.jobs.values().stream()
            .filter(j -> j.state == State.PENDING)
            .sorted(
                Comparator.comparingInt((FakeJob j) -> -tier(j))
                    .thenComparingInt(j -> -FakeAccounting.qos(j).priority())
                    .thenComparingLong(j -> j.id))
            .toList();
    Instant now = c.now();
    for (FakeJob j : pending) {
      if (j.eligibleAt != null && j.eligibleAt.isAfter(now)) {
        continue;
      }
      if (j.nodeCount > c.partitionSize(c.partitions.get(j.partition))) {
        j.reason = "PartitionNodeLimit"; // waits for nodes to join, as in Slurm
        continue;
      }
      List<String> fit = place(j, x -> true);
      if (fit == null) {
        Predicate<FakeJob> stays = other -> !preemptableBy(other, j);
        fit = place(j, stays);
        if (fit == null) {
          j.reason = "Resources";
          continue;
        }
        for (String node : fit) {
          for (FakeJob victim : jobsOn(node).filter(stays.negate()).toList()) {
            preempt(victim);
          }
        }
      }
      start(j, fit);
    }
  }

  private int tier(FakeJob j) {
    FakePartition p = c.partitions.get(j.partition);
    return p == null ? 0 : p.priorityTier();
  }

  private static boolean preemptableBy(FakeJob victim, FakeJob by) {
    return FakeAccounting.qos(by).preempts().contains(victim.qos);
  }

  /** The nodes for {@code j} counting only the running jobs {@code counted}; null if none. */
  private List<String> place(FakeJob j, Predicate<FakeJob> counted) {
    FakePartition p = c.partitions.get(j.partition);
    List<String> chosen = new ArrayList<>();
    for (String r : j.required) {
      FakeNode n = c.nodes.get(r);
      if (n == null || !candidate(j, p, n) || !fits(j, n, counted)) {
        return null;
      }
      chosen.add(r);
    }
    for (FakeNode n : c.nodes.values()) {
      if (chosen.size() >= j.nodeCount) {
        break;
      }
      if (!chosen.contains(n.name) && candidate(j, p, n) && fits(j, n, counted)) {
        chosen.add(n.name);
      }
    }
    return chosen.size() >= j.nodeCount ? chosen : null;
  }

  private static boolean candidate(FakeJob j, FakePartition p, FakeNode n) {
    return p.holds(n.name) && n.schedulable() && !j.excluded.contains(n.name);
  }

  private boolean fits(FakeJob j, FakeNode n, Predicate<FakeJob> counted) {
    List<FakeJob> there = jobsOn(n.name).filter(counted).toList();
    if (j.sharing == Sharing.EXCLUSIVE && !there.isEmpty()) {
      return false;
    }
    for (FakeJob o : there) {
      boolean userBound = o.sharing == Sharing.USER || j.sharing == Sharing.USER;
      if (o.sharing == Sharing.EXCLUSIVE || (userBound && !o.user.equals(j.user))) {
        return false;
      }
    }
    int cpus = there.stream().mapToInt(o -> o.cpusPerNode).sum();
    long mem = there.stream().mapToLong(o -> o.memoryMbPerNode).sum();
    return cpus + j.cpusPerNode <= n.cpus
        && mem + j.memoryMbPerNode <= n.memoryMb
        && gresFits(n, j.gres, gresUsed(n, counted));
  }

  static boolean gresFits(FakeNode n, Map<String, Integer> want, Map<String, Integer> used) {
    for (Map.Entry<String, Integer> e : want.entrySet()) {
      int total = n.gresTotal.getOrDefault(e.getKey(), 0);
      if (used.getOrDefault(Gres.name(e.getKey()), 0) + e.getValue() > total) {
        return false;
      }
    }
    return true;
  }

  private void start(FakeJob j, List<String> nodes) {
    j.state = State.RUNNING;
    j.reason = "None";
    j.nodes = new ArrayList<>(nodes);
    j.startTime = c.now();
    for (String n : nodes) {
      running.computeIfAbsent(n, k -> new ArrayList<>()).add(j);
    }
    touch(j);
  }

  private void preempt(FakeJob victim) {
    Instant now = c.now();
    victim.preemptTime = now;
    if (victim.requeue) {
      // What 22.05 showed: back to PENDING, reason BeginTime, no visible PREEMPTED state.
      release(victim);
      victim.nodes = new ArrayList<>();
      victim.state = State.PENDING;
      victim.reason = "BeginTime";
      victim.eligibleAt = now.plus(REQUEUE_HOLD);
      victim.restarts++;
      victim.startTime = null;
      touch(victim);
    } else {
      finish(victim, State.PREEMPTED);
    }
  }

  /** Ends a job and frees its nodes. */
  void finish(FakeJob j, State s) {
    release(j);
    j.end(s, c.now());
    touch(j);
  }

  /** A node went DOWN: its jobs are requeued if they allow it, else end NODE_FAIL. */
  void nodeFailed(FakeNode n) {
    for (FakeJob j : jobsOn(n.name).toList()) {
      if (j.requeue) {
        release(j);
        j.nodes = new ArrayList<>();
        j.state = State.PENDING;
        j.reason = "BeginTime";
        j.eligibleAt = c.now().plus(REQUEUE_HOLD);
        j.restarts++;
        touch(j);
      } else {
        finish(j, State.NODE_FAIL);
      }
    }
  }

  private void release(FakeJob j) {
    for (String name : j.nodes) {
      List<FakeJob> there = running.get(name);
      if (there != null) {
        there.remove(j);
        if (there.isEmpty()) {
          running.remove(name);
        }
      }
      FakeNode n = c.nodes.get(name);
      if (n != null) {
        n.lastBusy = c.now();
      }
    }
    c.nodesChanged();
  }

  private void touch(FakeJob j) {
    c.jobsChanged();
    if (!j.nodes.isEmpty()) {
      // Allocations change the nodes' states (IDLE/MIXED/ALLOCATED) too.
      c.nodesChanged();
    }
  }
}
