package dev.tandem.activities;

import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.remediation.HealthCheck;
import dev.tandem.workflows.remediation.HealthCheckResult;
import dev.tandem.workflows.remediation.RemediationTarget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remediation's health-check job (docs/remediation.md, "Health-check job") through the Slurm
 * client.
 *
 * <ol>
 *   <li>Start: reservation {@code tandem-check-<k8sNode>} over the target's Slurm nodes (flags
 *       MAINT, IGNORE_JOBS, for the token's user; the check's timeout plus {@link #MARGIN}), so
 *       that when remediation lifts its drain only this job can land there. Then, unless a job
 *       named {@code tandem-check-<token>} exists (an earlier try submitted it), one job in it on
 *       exactly those nodes, with the check's script and a time limit of its timeout, in a
 *       partition all of them share (else the default one).
 *   <li>Result: COMPLETED (exit 0) passes; pending, running or requeued is still running; every
 *       other end, and a job Slurm no longer knows, fails (fail closed).
 *   <li>End: cancel the job (an ended one is fine), delete the reservation (an absent one is fine).
 * </ol>
 */
final class HealthCheckJobs {
  private static final Logger log = LoggerFactory.getLogger(HealthCheckJobs.class);

  /** The reservation outlives the check's timeout by this much, then Slurm ends it by itself. */
  static final Duration MARGIN = Duration.ofMinutes(10);

  static final String PREFIX = "tandem-check-";

  private final SlurmClient slurm;

  HealthCheckJobs(SlurmClient slurm) {
    this.slurm = slurm;
  }

  static String reservation(String k8sNode) {
    return PREFIX + k8sNode;
  }

  static String jobName(String token) {
    return PREFIX + token;
  }

  long start(RemediationTarget target, String token) {
    HealthCheck hc = target.policy().healthCheck();
    if (hc == null || hc.script() == null || hc.script().isBlank() || hc.timeoutSeconds() <= 0) {
      throw KubeCalls.rejected("the policy of " + target.k8sNode() + " has no health check");
    }
    if (token == null || !token.matches("[A-Za-z0-9-]{1,64}")) {
      throw KubeCalls.rejected("startHealthCheck needs a token of letters, digits and '-'");
    }
    List<String> nodes = target.slurmNodes().stream().map(NodeRef::slurmName).toList();
    if (nodes.isEmpty()) {
      throw KubeCalls.rejected(target.k8sNode() + " has no Slurm nodes to check");
    }
    String resv = reservation(target.k8sNode());
    slurm.createReservation(resv, nodes, Duration.ofSeconds(hc.timeoutSeconds()).plus(MARGIN));
    String name = jobName(token);
    for (SlurmJob j : slurm.listJobs(null).items()) {
      if (name.equals(j.name())) {
        return j.id();
      }
    }
    JobSubmission job =
        JobSubmission.builder(name)
            .comment("tandem health check of " + target.k8sNode())
            .partition(commonPartition(nodes))
            .reservation(resv)
            .nodeList(nodes)
            .nodeCount(nodes.size())
            .timeLimitMinutes(Math.max(1, (hc.timeoutSeconds() + 59) / 60))
            .noRequeue(true)
            .script(withInterpreter(hc.script()))
            .environment(Map.of("PATH", "/usr/local/bin:/usr/bin:/bin"))
            .build();
    long id = slurm.submit(job);
    log.info(
        "remediation of node {}: health-check job {} submitted on {} in reservation {}",
        target.k8sNode(),
        id,
        nodes,
        resv);
    return id;
  }

  /** Slurm runs only scripts that name their interpreter; a bare one gets {@code /bin/sh}. */
  static String withInterpreter(String script) {
    return script.startsWith("#!") ? script : "#!/bin/sh\n" + script;
  }

  /** A partition every node is in (the first of the first node's), or null for the default. */
  private String commonPartition(List<String> nodes) {
    Set<String> common = null;
    for (String n : nodes) {
      List<String> ps = slurm.getNode(n).partitions();
      if (common == null) {
        common = new LinkedHashSet<>(ps);
      } else {
        common.retainAll(ps);
      }
    }
    return common == null || common.isEmpty() ? null : common.iterator().next();
  }

  HealthCheckResult result(long jobId) {
    SlurmJob j;
    try {
      j = slurm.getJob(jobId);
    } catch (SlurmNotFoundException e) {
      return HealthCheckResult.failed("job vanished (Slurm no longer knows job " + jobId + ")");
    }
    String what = describe(j);
    if (j.pending() || j.active() || !j.finished()) {
      return HealthCheckResult.running(what);
    }
    if ("COMPLETED".equals(j.state()) && (j.exitCode() == null || j.exitCode() == 0)) {
      return HealthCheckResult.passed(what);
    }
    return HealthCheckResult.failed(what);
  }

  private static String describe(SlurmJob j) {
    List<String> parts = new ArrayList<>();
    parts.add(j.state());
    if (j.exitCode() != null) {
      parts.add("exit code " + j.exitCode());
    }
    if (j.stateReason() != null && !j.stateReason().isBlank() && !"None".equals(j.stateReason())) {
      parts.add("reason " + j.stateReason());
    }
    return String.join(", ", parts);
  }

  void end(String k8sNode, long jobId) {
    if (jobId > 0) {
      slurm.cancel(jobId, null);
    }
    slurm.deleteReservation(reservation(k8sNode));
    log.info("remediation of node {}: health check ended (job {})", k8sNode, jobId);
  }
}
