package dev.tandem.bench;

import dev.tandem.slurm.PlaceholderJob;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNotFoundException;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Part 3 of {@code tandem bench scheduling}: how long after Slurm preempts a pod's placeholder job
 * the pod is evicted.
 *
 * <ol>
 *   <li>A batch of up to {@link #PARALLEL} pods is created and awaited bound. They ask for whole
 *       nodes ({@code tandem.dev/exclusive: exclusive}), so each lands on its own node and each
 *       trial is independent. A pod's Slurm node is Tandem's {@code tandem.dev/slurm-node}
 *       annotation, else its placeholder's node.
 *   <li>After a random pause of up to one Slurm poll interval (so trials land at every phase of the
 *       watcher's poll cycle), one real {@code sbatch -p high --qos=high -w <node> --exclusive} job
 *       per node preempts the placeholder there.
 *   <li>{@link BenchPods}' watch timestamps each pod's eviction (deletionTimestamp, {@code
 *       DisruptionTarget}, or deletion). Slurm gives the placeholder's {@code preemptTime} in whole
 *       seconds, so the preemption happened at or after it; and it happened after {@code sbatch}
 *       was launched, since the high job did not exist before (Slurm runs on the same host, so one
 *       clock serves both). The sample is the eviction instant minus the later of the two: an upper
 *       bound of the true time, as each is, and the tighter one. The sample from {@code
 *       preemptTime} alone (up to 1 s longer than the truth, 0.5 s on average) and the sbatch
 *       answer → eviction time (which also holds Slurm's scheduling of the high job, and misses the
 *       submit) are kept beside it.
 *   <li>The high jobs are cancelled and the pods deleted before the next batch.
 * </ol>
 */
final class PreemptionTrials {
  static final int PARALLEL = 3;
  static final Duration BIND_LIMIT = Duration.ofSeconds(90);

  /** Samples in milliseconds, and trials that gave none. */
  record Result(
      List<Double> preemptToEvictMs,
      List<Double> preemptTimeToEvictMs,
      List<Double> sbatchToEvictMs,
      int failed) {}

  private final BenchPods pods;
  private final SlurmClient slurm;
  private final String slurmConf;
  private final String runId;
  private final Duration slurmPoll;
  private final PrintWriter out;
  private final Random random = new Random();

  PreemptionTrials(
      BenchPods pods,
      SlurmClient slurm,
      String slurmConf,
      String runId,
      Duration slurmPoll,
      PrintWriter out) {
    this.pods = pods;
    this.slurm = slurm;
    this.slurmConf = slurmConf;
    this.runId = runId;
    this.slurmPoll = slurmPoll;
    this.out = out;
  }

  Result run(int trials) throws InterruptedException, IOException {
    List<Double> preempt = new ArrayList<>();
    List<Double> preemptTime = new ArrayList<>();
    List<Double> sbatch = new ArrayList<>();
    int failed = 0;
    for (int done = 0; done < trials; ) {
      int k = Math.min(PARALLEL, trials - done);
      Map<String, String> uids = new LinkedHashMap<>();
      for (int i = done; i < done + k; i++) {
        String name = "bench-" + runId + "-p" + i;
        uids.put(name, pods.create(name, false, true));
      }
      done += k;
      Map<String, List<String>> byNode = new LinkedHashMap<>();
      for (Map.Entry<String, String> e : uids.entrySet()) {
        String node = awaitNode(e.getKey(), e.getValue());
        if (node == null) {
          failed++;
        } else {
          byNode.computeIfAbsent(node, x -> new ArrayList<>()).add(e.getKey());
        }
      }
      Thread.sleep(random.nextLong(Math.max(1, slurmPoll.toMillis())));
      Map<Long, Long> highJobs = new LinkedHashMap<>(); // job id → sbatch answered (nanos)
      Map<String, Long> sbatchAt = new LinkedHashMap<>();
      Map<String, Instant> launchedAt = new LinkedHashMap<>(); // pod → its sbatch launched
      for (Map.Entry<String, List<String>> e : byNode.entrySet()) {
        Instant launched = Instant.now();
        long id = sbatchHigh(e.getKey());
        long at = System.nanoTime();
        highJobs.put(id, at);
        e.getValue()
            .forEach(
                p -> {
                  sbatchAt.put(p, at);
                  launchedAt.put(p, launched);
                });
      }
      long end = System.nanoTime() + slurmPoll.plusSeconds(30).toNanos();
      while (System.nanoTime() < end && !sbatchAt.keySet().stream().allMatch(this::gone)) {
        Thread.sleep(20);
      }
      for (Map.Entry<String, Long> e : sbatchAt.entrySet()) {
        BenchPods.Gone g = pods.goneAt(e.getKey());
        PlaceholderJob job = preempted(uids.get(e.getKey()));
        if (g == null || job == null) {
          failed++;
          continue;
        }
        sbatch.add((g.nanos() - e.getValue()) / 1e6);
        preemptTime.add(Duration.between(job.preemptTime(), g.at()).toNanos() / 1e6);
        Instant launched = launchedAt.get(e.getKey());
        Instant from = launched.isAfter(job.preemptTime()) ? launched : job.preemptTime();
        preempt.add(Duration.between(from, g.at()).toNanos() / 1e6);
      }
      for (long id : highJobs.keySet()) {
        scancel(id);
      }
      uids.keySet().forEach(pods::delete);
      awaitEnded(highJobs.keySet());
    }
    return new Result(preempt, preemptTime, sbatch, failed);
  }

  private boolean gone(String pod) {
    return pods.goneAt(pod) != null;
  }

  /** Waits until the pod is bound; its Slurm node, or null if not bound within the limit. */
  private String awaitNode(String pod, String uid) throws InterruptedException {
    long end = System.nanoTime() + BIND_LIMIT.toNanos();
    while (System.nanoTime() < end) {
      if (pods.boundAt(pod) != null) {
        String node = pods.slurmNode(pod);
        if (node != null) {
          return node;
        }
        for (PlaceholderJob j : slurm.findJobsByTag(uid)) {
          if ("RUNNING".equals(j.state()) && j.nodes().size() == 1) {
            return j.nodes().get(0);
          }
        }
      }
      Thread.sleep(50);
    }
    out.printf("  pod %s not bound within %ds%n", pod, BIND_LIMIT.toSeconds());
    return null;
  }

  /** The pod's placeholder that Slurm preempted, or null (never preempted, or already purged). */
  private PlaceholderJob preempted(String uid) {
    return slurm.findJobsByTag(uid).stream()
        .filter(j -> j.preemptTime() != null)
        .findFirst()
        .orElse(null);
  }

  /** Waits (at most 30 s) until the high jobs no longer hold their nodes. */
  private void awaitEnded(Iterable<Long> ids) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    for (long id : ids) {
      while (System.nanoTime() < end) {
        try {
          SlurmJob j = slurm.getJob(id);
          if (!j.mayHoldNodes()) {
            break;
          }
        } catch (SlurmNotFoundException e) {
          break;
        }
        Thread.sleep(100);
      }
    }
  }

  private long sbatchHigh(String node) throws IOException, InterruptedException {
    return SlurmCommand.sbatch(
        slurmConf,
        List.of(
            "-p",
            "high",
            "--qos=high",
            "-w",
            node,
            "--exclusive",
            "-J",
            "tandem-bench-high-" + runId,
            "--wrap",
            "sleep 600"));
  }

  void scancel(long id) throws IOException, InterruptedException {
    command(List.of("scancel", Long.toString(id)));
  }

  private String command(List<String> cmd) throws IOException, InterruptedException {
    return SlurmCommand.run(slurmConf, cmd);
  }
}
