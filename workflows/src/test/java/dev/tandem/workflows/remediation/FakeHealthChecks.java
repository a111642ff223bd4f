package dev.tandem.workflows.remediation;

import java.util.HashMap;
import java.util.Map;

/**
 * Health-check jobs behind {@link FakeRepair}, with Slurm's rules that matter: one job per token, a
 * job runs only when none of its nodes is drained (a drain another owner holds keeps it pending),
 * then it ends after {@link #runPolls} polls with {@link #exitCode}.
 */
public class FakeHealthChecks {
  private final FakeRepair world;
  private final Map<String, Long> byToken = new HashMap<>();
  private final Map<Long, RemediationTarget> targets = new HashMap<>();
  private final Map<Long, Integer> ran = new HashMap<>();
  private long next = 100;

  /** Polls the job answers RUNNING once it could start. */
  public volatile int runPolls = 2;

  public volatile int exitCode = 0;

  /** Slurm forgot every job (purged, or a new controller state). */
  public volatile boolean vanished;

  FakeHealthChecks(FakeRepair world) {
    this.world = world;
  }

  synchronized long start(RemediationTarget t, String token) {
    Long id = byToken.get(token);
    if (id != null) {
      return id;
    }
    id = next++;
    byToken.put(token, id);
    targets.put(id, t);
    world.log.add("start-check " + t.k8sNode() + " " + id);
    return id;
  }

  synchronized HealthCheckResult result(long id) {
    RemediationTarget t = targets.get(id);
    if (t == null || vanished) {
      return HealthCheckResult.failed("job vanished");
    }
    boolean drained = t.slurmNodes().stream().anyMatch(n -> world.slurmReason.get(n.pod()) != null);
    if (drained) {
      return HealthCheckResult.running("PENDING (ReqNodeNotAvail)");
    }
    int n = ran.merge(id, 1, Integer::sum);
    if (n <= runPolls) {
      return HealthCheckResult.running("RUNNING");
    }
    HealthCheckResult r =
        exitCode == 0
            ? HealthCheckResult.passed("COMPLETED, exit code 0")
            : HealthCheckResult.failed("FAILED, exit code " + exitCode);
    world.log.add("check-result " + id + " " + r.state());
    return r;
  }

  synchronized void end(String k8sNode, long id) {
    world.log.add("end-check " + k8sNode + " " + id);
  }

  synchronized int jobs() {
    return byToken.size();
  }
}
