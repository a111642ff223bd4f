package dev.tandem.slurm.fake;

import dev.tandem.slurm.fake.FakeJob.State;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fake slurmctld's state: partitions, nodes and jobs, and when each last changed (whole
 * seconds, as slurmctld's {@code last_node_update}, {@code last_job_update} and {@code
 * last_part_update}). Every method is synchronized: the HTTP threads and the scheduler tick share
 * it.
 */
final class FakeCluster {
  final Clock clock;
  final Duration minJobAge;
  final Map<String, FakePartition> partitions = new LinkedHashMap<>();
  final Map<String, FakeNode> nodes = new LinkedHashMap<>();
  final Map<Long, FakeJob> jobs = new LinkedHashMap<>();
  private final FakeScheduler scheduler = new FakeScheduler(this);
  private long nextJobId = 1;
  long nodesChanged;
  long jobsChanged;
  long partitionsChanged;

  FakeCluster(Clock clock, Duration minJobAge) {
    this.clock = clock;
    this.minJobAge = minJobAge;
    long now = nowSeconds();
    nodesChanged = now;
    jobsChanged = now;
    partitionsChanged = now;
  }

  Instant now() {
    return clock.instant();
  }

  long nowSeconds() {
    return clock.instant().getEpochSecond();
  }

  void nodesChanged() {
    nodesChanged = nowSeconds();
  }

  void jobsChanged() {
    jobsChanged = nowSeconds();
  }

  synchronized void addPartition(FakePartition p) {
    partitions.put(p.name(), p);
    partitionsChanged = nowSeconds();
  }

  /**
   * A slurmd registers: a new node (dynamic unless declared static), or a known one whose slurmd
   * restarted (new start time, NOT_RESPONDING cleared).
   */
  synchronized void register(FakeSlurmrestd.NodeSpec spec, boolean dynamic) {
    FakeNode n = nodes.get(spec.name());
    if (n == null) {
      List<String> parts = new ArrayList<>();
      for (FakePartition p : partitions.values()) {
        if (p.holds(spec.name())) {
          parts.add(p.name());
        }
      }
      nodes.put(spec.name(), new FakeNode(spec, parts, dynamic, now()));
      // A node joins its partitions: the partition records change too.
      partitionsChanged = nowSeconds();
    } else {
      n.slurmdStartTime = now();
      n.flags.remove(FakeNode.Flag.NOT_RESPONDING);
    }
    nodesChanged();
    scheduler.schedule();
  }

  /** The node's slurmd stopped answering (a crash: slurmctld was not told). */
  synchronized void slurmdLost(String name) {
    FakeNode n = require(name);
    n.flags.add(FakeNode.Flag.NOT_RESPONDING);
    nodesChanged();
  }

  synchronized FakeNode require(String name) {
    FakeNode n = nodes.get(name);
    if (n == null) {
      throw FakeSlurmError.refused(
          2018, "Invalid node name specified", "Failure to update node " + name);
    }
    return n;
  }

  /** {@code POST /node/{name}}: the states Tandem sends (DRAIN, UNDRAIN, RESUME, DOWN). */
  synchronized void update(String name, List<String> states, String reason, String user) {
    FakeNode n = require(name);
    Instant now = now();
    for (String s : states) {
      switch (s) {
        case "DRAIN" -> {
          needReason(s, reason);
          n.flags.add(FakeNode.Flag.DRAIN);
          n.setReason(reason, user, now);
        }
        case "UNDRAIN" -> n.flags.remove(FakeNode.Flag.DRAIN);
        case "RESUME" -> {
          if (!n.down && !n.flags.contains(FakeNode.Flag.DRAIN)) {
            throw FakeSlurmError.refused(
                2180, "Invalid node state transition", "Failure to update node " + name);
          }
          n.down = false;
          n.flags.remove(FakeNode.Flag.DRAIN);
        }
        case "DOWN" -> {
          needReason(s, reason);
          n.down = true;
          n.setReason(reason, user, now);
          scheduler.nodeFailed(n);
        }
        default ->
            throw FakeSlurmError.refused(
                2180, "Invalid node state transition", "state " + s + " is not modelled");
      }
    }
    // 25.11 keeps the reason text after UNDRAIN/RESUME (docs/slurm-versions.md): so does the fake.
    nodesChanged();
    scheduler.schedule();
  }

  private static void needReason(String state, String reason) {
    if (reason == null || reason.isBlank()) {
      throw FakeSlurmError.refused(2158, "Reason is required", state + " needs a reason");
    }
  }

  /** {@code DELETE /node/{name}}: dynamic nodes without jobs only. */
  synchronized void delete(String name) {
    FakeNode n = require(name);
    if (!n.dynamic) {
      throw FakeSlurmError.refused(
          2028, "Invalid node state specified", "Failure to update node " + name);
    }
    if (scheduler.jobsOn(name).findAny().isPresent()) {
      throw FakeSlurmError.refused(
          2016, "Requested nodes are busy", "Failure to update node " + name);
    }
    nodes.remove(name);
    nodesChanged();
    partitionsChanged = nowSeconds();
  }

  /**
   * {@code POST /new/node/}: a dynamic node from a node line. The fake has no FUTURE state, so the
   * node is listed as registered at once. A name that exists is answered as Slurm 25.11.7 answers
   * it: 2168, and the existing node is deleted ({@code add_node_record()} hands back the existing
   * record with ESLURM_NODE_ALREADY_EXISTS and the create callback deletes it; seen for a
   * registered, idle dynamic node). Jobs on it lose their node as on DOWN (the fake's choice).
   */
  synchronized void create(FakeSlurmrestd.NodeSpec spec) {
    FakeNode existing = nodes.get(spec.name());
    if (existing != null) {
      scheduler.nodeFailed(existing);
      nodes.remove(spec.name());
      nodesChanged();
      partitionsChanged = nowSeconds();
      throw FakeSlurmError.refused(
          2168, "Node already exists in the node table", "Failure to create node");
    }
    register(spec, true);
  }

  synchronized long submit(FakeJob.JobRequest r, String user) {
    FakeAdmission.check(this, r);
    FakeJob j = new FakeJob(nextJobId++, r, user, now());
    jobs.put(j.id, j);
    jobsChanged();
    scheduler.schedule();
    return j.id;
  }

  /** How many nodes partition {@code p} holds now, whatever their state. */
  int partitionSize(FakePartition p) {
    return p.nodes() == null
        ? nodes.size()
        : (int) nodes.keySet().stream().filter(p::holds).count();
  }

  FakeScheduler scheduler() {
    return scheduler;
  }

  synchronized FakeJob job(long id) {
    return jobs.get(id);
  }

  /**
   * Cancel (signal null) or signal a job; returns the Slurm error code for the {@code status[]}
   * entry: 0, 2017 unknown, 2021 already ended.
   */
  synchronized int signal(long id, int signal) {
    FakeJob j = jobs.get(id);
    if (j == null) {
      return 2017;
    }
    if (j.state.ended()) {
      return 2021;
    }
    if (signal == 0) {
      scheduler.finish(j, State.CANCELLED);
    } else if (j.state == State.RUNNING && FakeSignals.ends(signal)) {
      // The batch shell dies of the signal: the job fails with it (FAILED, 0:signal).
      j.signaled = true;
      j.exit = signal;
      scheduler.finish(j, State.FAILED);
    } else if (j.state == State.PENDING && FakeSignals.ends(signal)) {
      // Slurm refuses to signal a job that has not started.
      return 2020;
    }
    scheduler.schedule();
    return 0;
  }

  /** The job's batch script exited with {@code exitCode}: COMPLETED (0) or FAILED. */
  synchronized void complete(long id, int exitCode) {
    FakeJob j = jobs.get(id);
    if (j == null || j.state != State.RUNNING) {
      throw new IllegalStateException("job " + id + " is not running");
    }
    j.exit = exitCode;
    scheduler.finish(j, exitCode == 0 ? State.COMPLETED : State.FAILED);
    scheduler.schedule();
  }

  /** Time limits, MinJobAge purges, then a scheduling pass. */
  synchronized void tick() {
    Instant now = now();
    for (FakeJob j : List.copyOf(jobs.values())) {
      if (j.state == State.RUNNING
          && j.timeLimitMinutes != null
          && j.startTime.plus(Duration.ofMinutes(j.timeLimitMinutes)).isBefore(now)) {
        scheduler.finish(j, State.TIMEOUT);
      }
    }
    for (Iterator<FakeJob> it = jobs.values().iterator(); it.hasNext(); ) {
      FakeJob j = it.next();
      if (j.state.ended() && j.endTime.plus(minJobAge).isBefore(now)) {
        it.remove();
        jobsChanged();
      }
    }
    scheduler.schedule();
  }
}
