package dev.tandem.workflows.remediation;

import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.DrainPolicy;
import dev.tandem.workflows.model.DrainReason;
import dev.tandem.workflows.model.NodeJobs;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.SlurmNodeView;
import java.util.ArrayList;
import java.util.List;

/**
 * Waiting for jobs after the drain.
 *
 * <ol>
 *   <li>Every {@code recheckSeconds} (or on a {@code recheck} signal) read each Slurm node of the
 *       target and its jobs. A node counts as out of service when Slurm has no record of it or
 *       shows it drained, DOWN or not responding, and no job holds resources on it. What cannot be
 *       read counts as busy (fail closed).
 *   <li>Every node out of service: go to the first rung of the policy's steps.
 *   <li>Past {@code policy.jobs.timeoutSeconds} (0 = no timeout): {@code FORCE} marks the busy
 *       nodes DOWN with a {@code tandem:remediation: ...} reason (Slurm requeues or kills their
 *       jobs) and goes on; {@code WAIT} records the timeout once and waits on, saying so.
 * </ol>
 */
final class JobWait {
  private final Ladder l;
  private final LadderEffects fx;

  JobWait(Ladder l, LadderEffects fx) {
    this.l = l;
    this.fx = fx;
  }

  Tick waitingForJobs() {
    long recheck = l.policy().recheckSeconds();
    List<String> busy = new ArrayList<>();
    List<String> busyNames = new ArrayList<>();
    for (NodeRef n : l.target.slurmNodes()) {
      String why = busy(n.slurmName());
      if (why != null) {
        busy.add(why);
        busyNames.add(n.slurmName());
      }
    }
    if (busy.isEmpty()) {
      return ActionSteps.enterRung(l, 0, "jobs-done", "no job runs on " + names());
    }
    DrainPolicy jobs = l.policy().jobs();
    long waited = l.secondsInStep();
    if (!jobs.hasTimeout() || waited < jobs.timeoutSeconds()) {
      if (!jobs.hasTimeout()) {
        return Tick.stay(recheck);
      }
      return Tick.stay(Math.min(recheck, jobs.timeoutSeconds() - waited));
    }
    if (!EarlySteps.force(jobs)) {
      if (!l.jobsTimeoutRecorded) {
        l.jobsTimeoutRecorded = true;
        l.timeline(
            "jobs-timeout",
            "still busy after "
                + jobs.timeoutSeconds()
                + "s; policy WAIT: waiting on for "
                + String.join("; ", busy));
      }
      return Tick.stay(recheck);
    }
    String reason =
        DrainReason.format(
            DrainCause.REMEDIATION,
            "forced down after jobs ran " + jobs.timeoutSeconds() + "s: " + l.cause());
    for (String name : busyNames) {
      SlurmNodeView v =
          fx.call(
              "force " + name + " down",
              () -> fx.slurm("force " + name + " DOWN (remediation)").forceDown(name, reason));
      if (v == null) {
        return Tick.stay(EarlySteps.RETRY_SECONDS);
      }
    }
    return ActionSteps.enterRung(
        l,
        0,
        "jobs-forced",
        "still busy after " + jobs.timeoutSeconds() + "s: forced DOWN: " + String.join("; ", busy));
  }

  /** Why {@code name} is not out of service yet, or null when it is. */
  private String busy(String name) {
    SlurmNodeView v =
        fx.call("read " + name, () -> fx.slurm("read Slurm node " + name).getNode(name));
    if (v == null) {
      return name + ": unknown";
    }
    if (!v.known()) {
      return null;
    }
    boolean out = v.drainFlag() || "down".equals(v.state()) || v.flags().contains("NOT_RESPONDING");
    if (!out) {
      return name + ": not drained yet (" + v.state() + ")";
    }
    NodeJobs jobs =
        fx.call("read jobs on " + name, () -> fx.slurm("jobs on " + name).jobsOnNode(name));
    if (jobs == null) {
      return name + ": jobs unknown";
    }
    return jobs.busy() ? name + ": jobs " + jobs.jobIds() : null;
  }

  private String names() {
    return EarlySteps.names(l.target.slurmNodes());
  }
}
