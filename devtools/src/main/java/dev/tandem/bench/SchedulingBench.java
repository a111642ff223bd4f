package dev.tandem.bench;

import dev.tandem.bench.SchedulingFigures.Run;
import dev.tandem.bench.SchedulingFigures.Verdict;
import dev.tandem.slurm.PlaceholderJob;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.bench.Latencies;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code tandem bench scheduling}: pods through Slurm ({@code schedulerName: tandem-slurm}) against
 * the same jobs straight through slurmrestd, and preemption → eviction, on a running stack whose
 * Slurm partition holds only NodeSet nodes. The parts are {@link PodChurn}, {@link RawSlurmRun},
 * the floor (the same churn through {@link FloorScheduler}, which makes only the calls every pod
 * needs: what it reaches bounds what the targets can ask of this machine) and {@link
 * PreemptionTrials} (what each times is in their Javadoc); this class runs them in that order,
 * prints the figures with their targets ({@link SchedulingFigures}), and cleans up: the run's pods,
 * then any of its Slurm jobs (placeholders of its pods, raw and high jobs) still waiting or
 * running. Placeholders Tandem did not cancel after their pods were deleted are reported before the
 * bench cancels them.
 */
public final class SchedulingBench {
  /**
   * Jobs held per measured item, and at least {@link #LARGE_TABLE_MIN} in all, above which {@link
   * #jobTable} says that listings may dominate: on Slurm 22.05 a listing answers every job held, so
   * at several jobs per item each listing of a 200-pod run takes seconds, where at one or two per
   * item it takes a fraction of one (docs/benchmarks.md, "Reading the figures").
   */
  private static final int LARGE_TABLE = 4;

  /** A smaller table lists quickly whatever the run's size (about 3 MB a listing on 22.05). */
  private static final int LARGE_TABLE_MIN = 800;

  /** How long Tandem gets to cancel the placeholders of deleted pods before the bench does. */
  private static final Duration CANCEL_LIMIT = Duration.ofSeconds(60);

  /** What one run measured. */
  public record Result(
      Run pods,
      Run raw,
      Run floor,
      PreemptionTrials.Result preemption,
      int leftoverPlaceholders,
      Offer offer) {
    /**
     * Every target met, and Tandem cancelled every placeholder of a deleted pod. A paced run never
     * passes: it does not measure throughput.
     */
    public boolean allPass(Duration slurmPoll) {
      return SchedulingFigures.throughput(pods, raw, offer) == Verdict.PASS
          && SchedulingFigures.bindLatency(pods, raw) == Verdict.PASS
          && SchedulingFigures.preemption(preemption.preemptToEvictMs(), slurmPoll) == Verdict.PASS
          && leftoverPlaceholders == 0;
    }
  }

  private final KubernetesClient k8s;
  private final SlurmClient slurm;
  private final WorkflowClient temporal;
  private final String namespace;
  private final String partition;
  private final String slurmConf;
  private final URI metrics;
  private final Duration slurmPoll;
  private final PrintWriter out;
  private final CpuShares cpu;
  private final CounterDiff counters;
  private final Offer offer;

  /** namespace/name → uid of a few measured pods, whose workflow histories show a pod's cost. */
  private final Map<String, String> samplePods = new java.util.TreeMap<>();

  /** Part ("warm-up", "measured", "preempted") → namespace/name → uid of the pods it created. */
  private final Map<String, Map<String, String>> partPods =
      java.util.Collections.synchronizedMap(new java.util.LinkedHashMap<>());

  private final String runId = Long.toString(System.currentTimeMillis() % 100_000_000L, 36);

  /**
   * @param partition a Slurm partition of NodeSet nodes only (the local Slurm's {@code tandem})
   * @param slurmConf SLURM_CONF for sbatch/scancel
   * @param metrics the worker's /metrics, or null
   * @param slurmPoll the worker's Slurm poll interval (the preemption target depends on it)
   * @param workerPid the worker JVM's pid, for the CPU each part cost (0: not known)
   * @param temporal the stack's Temporal, for the floor ({@link FloorScheduler}); null: no floor
   * @param offer how the measured parts offer their items (the warm-up offers them all at once)
   */
  public SchedulingBench(
      KubernetesClient k8s,
      SlurmClient slurm,
      WorkflowClient temporal,
      String namespace,
      String partition,
      String slurmConf,
      URI metrics,
      Duration slurmPoll,
      long workerPid,
      Offer offer,
      PrintWriter out) {
    this.k8s = k8s;
    this.slurm = slurm;
    this.temporal = temporal;
    this.namespace = namespace;
    this.partition = partition;
    this.slurmConf = slurmConf;
    this.metrics = metrics;
    this.slurmPoll = slurmPoll;
    this.out = out;
    this.cpu = new CpuShares(workerPid);
    this.counters = new CounterDiff(metrics);
    this.offer = offer;
  }

  /**
   * Runs the parts after a warm-up: {@code warmup} pods churned and as many raw jobs run exactly as
   * the measured ones (own names, own pods), not measured. Every JVM of the stack (kubelet, worker,
   * the bench's own Slurm client) is then past its JIT compilation, which otherwise takes a large
   * share of the two cores during the first part only and so weighs on the pods, not on the raw
   * jobs that follow.
   */
  public Result run(int warmup, int n, int preemptions) throws InterruptedException, IOException {
    List<String> uids = new ArrayList<>();
    if (warmup > 0) {
      warmUp(warmup, uids);
    }
    return run(n, preemptions, uids);
  }

  private void warmUp(int w, List<String> uids) throws InterruptedException {
    String id = runId + "w";
    out.printf(
        "warm-up %s: %d pods, then %d raw jobs%s (not measured)%n",
        id, w, w, temporal == null ? "" : ", then " + w + " through the floor");
    out.flush();
    try (BenchPods bp = new BenchPods(k8s, namespace, id, partition)) {
      Run pods = new PodChurn(bp, id, Offer.BURST).run(w, uids);
      partPods.put("warm-up", qualified(bp.uids()));
      out.println(SchedulingFigures.describe("  warm-up pods", pods));
      awaitPlaceholdersCancelled(bp, uids);
      Run raw = new RawSlurmRun(slurm, partition, id, Offer.BURST).run(w);
      out.println(SchedulingFigures.describe("  warm-up raw", raw));
      out.flush();
      if (temporal != null) {
        out.println(SchedulingFigures.describe("  warm-up floor", floor(id + "f", w, Offer.BURST)));
        out.flush();
      }
    }
  }

  /**
   * The floor: N pods through {@link FloorScheduler} instead of Tandem, churned as {@link PodChurn}
   * churns Tandem's, then waited for (bounded) until the floor cancelled every job.
   */
  private Run floor(String id, int n, Offer offered) throws InterruptedException {
    try (BenchPods bp = new BenchPods(k8s, namespace, id, partition, FloorScheduler.SCHEDULER);
        FloorScheduler fs = new FloorScheduler(k8s, slurm, temporal, namespace, id, partition)) {
      Run r = new PodChurn(bp, id, offered).run(n, new ArrayList<>());
      out.println(Latencies.summary("  floor job listings", fs.listingsMs()));
      bp.deleteAll(Duration.ofSeconds(60));
      int open = fs.awaitDrained(CANCEL_LIMIT);
      if (open > 0 || fs.failures() > 0) {
        out.printf(
            "WARNING: floor %s: %d jobs not cancelled, %d failed calls, first %s%n",
            id, open, fs.failures(), fs.firstFailures());
      }
      return r;
    }
  }

  public Result run(int n, int preemptions) throws InterruptedException, IOException {
    return run(n, preemptions, new ArrayList<>());
  }

  private Result run(int n, int preemptions, List<String> uids)
      throws InterruptedException, IOException {
    out.printf(
        "run %s: %d pods, then %d raw jobs, %sthen %d preemptions (partition %s, Slurm poll %d"
            + " ms); pods and jobs offered %s%n",
        runId,
        n,
        n,
        temporal == null ? "" : "then " + n + " through the floor, ",
        preemptions,
        partition,
        slurmPoll.toMillis(),
        offer.describe());
    out.println(jobTable(n));
    out.flush();
    Run pods;
    Run raw;
    Run floor = null;
    PreemptionTrials.Result pre;
    int leftovers;
    try (BenchPods bp = new BenchPods(k8s, namespace, runId, partition)) {
      try {
        Map<String, Double> m0 = counters.take();
        CpuShares.Sample c0 = cpu.take();
        pods = new PodChurn(bp, runId, offer).run(n, uids);
        CpuShares.Sample c1 = cpu.take();
        partPods.put("measured", qualified(bp.uids()));
        bp.uids().entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .limit(5)
            .forEach(e -> samplePods.put(namespace + "/" + e.getKey(), e.getValue()));
        Map<String, Double> m1 = counters.take();
        out.println(SchedulingFigures.describe("pods create -> bind", pods));
        out.println(CpuShares.describe("  pods", c0, c1, n));
        out.println(CounterDiff.describe("  pods", m0, m1, n));
        out.flush();
        leftovers = awaitPlaceholdersCancelled(bp, uids);
        out.println(jobTable(n));
        Map<String, Double> m2 = counters.take();
        CpuShares.Sample c2 = cpu.take();
        RawSlurmRun rawRun = new RawSlurmRun(slurm, partition, runId, offer);
        raw = rawRun.run(n);
        CpuShares.Sample c3 = cpu.take();
        Map<String, Double> m3 = counters.take();
        out.println(SchedulingFigures.describe("raw submit -> RUNNING", raw));
        out.println(Latencies.summary("  raw job listings", rawRun.listingsMs()));
        out.println(CpuShares.describe("  raw", c2, c3, n));
        out.println(CounterDiff.describe("  raw", m2, m3, n));
        out.flush();
        // The raw jobs right after the pods, the floor after both: raw jobs then start on a Slurm
        // as Tandem's own part left it (its placeholders released at once), not behind the floor's
        // cancels, which hold the nodes for KillWait while slurmctld ends 200 jobs.
        if (temporal != null) {
          CpuShares.Sample c4 = cpu.take();
          floor = floor(runId + "f", n, offer);
          CpuShares.Sample c5 = cpu.take();
          out.println(SchedulingFigures.describe("floor create -> bind", floor));
          out.println(CpuShares.describe("  floor", c4, c5, n));
          out.flush();
        }
        pre = new PreemptionTrials(bp, slurm, slurmConf, runId, slurmPoll, out).run(preemptions);
      } finally {
        Map<String, String> preempted = new java.util.TreeMap<>(qualified(bp.uids()));
        preempted.keySet().removeAll(partPods.getOrDefault("measured", Map.of()).keySet());
        partPods.put("preempted", preempted);
        int left = bp.deleteAll(Duration.ofSeconds(60));
        if (left > 0) {
          out.printf("WARNING: %d bench pods still listed after deletion%n", left);
        }
        cancelRunJobs(uids);
      }
    }
    print(pods, raw, floor, pre, leftovers);
    return new Result(pods, raw, floor, pre, leftovers, offer);
  }

  /**
   * How many jobs Slurm lists now, and how long it keeps ended ones: on Slurm 22.05 every listing
   * that anything changed answers all of them, so with a large table a raw job's (and a pod's) wait
   * to be seen RUNNING is the listing's time, not Slurm's start (docs/benchmarks.md, "Reading the
   * figures").
   */
  private String jobTable(int n) {
    String age = "MinJobAge not found in " + slurmConf;
    try {
      for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of(slurmConf))) {
        if (line.startsWith("MinJobAge=")) {
          age = line.trim() + " s";
        }
      }
    } catch (IOException | RuntimeException e) {
      age = "cannot read " + slurmConf + ": " + e.getMessage();
    }
    try {
      int jobs = slurm.listJobs(null).items().size();
      String line = String.format(Locale.ROOT, "  Slurm lists %d jobs (%s)", jobs, age);
      if (jobs > Math.max(LARGE_TABLE * n, LARGE_TABLE_MIN)) {
        // Said, not warned: a large table is the machine's state, not the bench failing.
        line +=
            String.format(
                Locale.ROOT,
                "%n  note: more than %d jobs per measured item (and %d in all): on Slurm 22.05"
                    + " each listing answers them all, so the parts may measure their listings (a"
                    + " local Slurm started with TANDEM_SLURM_MIN_JOB_AGE=30 keeps fewer)",
                LARGE_TABLE,
                LARGE_TABLE_MIN);
      }
      return line;
    } catch (RuntimeException e) {
      return "  Slurm's jobs could not be listed: " + e.getMessage();
    }
  }

  private Map<String, String> qualified(Map<String, String> byName) {
    Map<String, String> q = new java.util.TreeMap<>();
    byName.forEach((name, uid) -> q.put(namespace + "/" + name, uid));
    return q;
  }

  /**
   * Part ("warm-up", "measured", "preempted", in that order) → namespace/name → uid of every pod
   * Tandem scheduled in it (not the floor's), for {@link RefusedTasks}.
   */
  public Map<String, Map<String, String>> partPods() {
    synchronized (partPods) {
      return new java.util.LinkedHashMap<>(partPods);
    }
  }

  /** namespace/name → uid of the first five pods of the measured run. */
  public Map<String, String> samplePods() {
    return Map.copyOf(samplePods);
  }

  /**
   * After the churn every pod is deleted: Tandem must cancel their placeholders. Waits for that
   * (bounded), so the raw run starts on free nodes; returns how many were still waiting or running.
   */
  private int awaitPlaceholdersCancelled(BenchPods bp, List<String> uids)
      throws InterruptedException {
    bp.deleteAll(Duration.ofSeconds(60));
    Set<String> ours = new HashSet<>(uids);
    long end = System.nanoTime() + CANCEL_LIMIT.toNanos();
    int live;
    do {
      live = livePlaceholders(ours).size();
      if (live > 0) {
        Thread.sleep(500);
      }
    } while (live > 0 && System.nanoTime() < end);
    if (live > 0) {
      out.printf(
          "WARNING: %d placeholders of deleted pods not cancelled by Tandem within %ds%n",
          live, CANCEL_LIMIT.toSeconds());
      cancelRunJobs(uids);
    }
    return live;
  }

  private List<Long> livePlaceholders(Set<String> uids) {
    List<Long> ids = new ArrayList<>();
    for (SlurmJob j : slurm.listJobs(null).items()) {
      PlaceholderJob.of(j)
          .filter(p -> uids.contains(p.podUid()) && !j.finished())
          .ifPresent(p -> ids.add(p.jobId()));
    }
    return ids;
  }

  /** Cancels every job of this run still waiting or running: placeholders, raw and high jobs. */
  private void cancelRunJobs(List<String> uids) {
    Set<String> ours = new HashSet<>(uids);
    List<Long> ids = new ArrayList<>(livePlaceholders(ours));
    for (SlurmJob j : slurm.listJobs(null).items()) {
      if (j.name() != null && j.name().contains("bench-") && j.name().contains(runId)) {
        if (!j.finished()) {
          ids.add(j.id());
        }
      }
    }
    for (long id : ids) {
      try {
        slurm.cancel(id, null);
      } catch (RuntimeException e) {
        out.printf("WARNING: could not cancel job %d: %s%n", id, e.getMessage());
      }
    }
  }

  private void print(Run pods, Run raw, Run floor, PreemptionTrials.Result pre, int leftovers) {
    out.println();
    out.println(SchedulingFigures.describe("pods create -> bind", pods));
    out.println(SchedulingFigures.describe("raw submit -> RUNNING", raw));
    if (floor != null) {
      out.println(SchedulingFigures.describe("floor create -> bind", floor));
    }
    out.println(Latencies.summary("pods create -> bind", pods.latenciesMs()));
    out.println(Latencies.summary("raw submit -> RUNNING", raw.latenciesMs()));
    if (floor != null) {
      out.println(Latencies.summary("floor create -> bind", floor.latenciesMs()));
    }
    out.printf(
        Locale.ROOT,
        "throughput pods/raw = %.2f (target >= %.1f): %s%n",
        pods.perSecond() / raw.perSecond(),
        SchedulingFigures.THROUGHPUT_SHARE,
        SchedulingFigures.throughput(pods, raw, offer));
    if (offer.paced()) {
      out.println(SchedulingFigures.pacedLine(pods, raw, offer));
    }
    out.printf(
        Locale.ROOT,
        "p50 pods - raw = %+.1f ms (target <= +%.0f ms): %s%n",
        pods.p50() - raw.p50(),
        SchedulingFigures.BIND_P50_SLACK_MS,
        SchedulingFigures.bindLatency(pods, raw));
    if (floor != null) {
      out.println(SchedulingFigures.floorLine(pods, raw, floor, offer));
    }
    out.println(Latencies.summary("Slurm preempt -> evict", pre.preemptToEvictMs()));
    out.println(Latencies.summary("preemptTime (whole s) -> evict", pre.preemptTimeToEvictMs()));
    out.println(Latencies.summary("sbatch high -> evict", pre.sbatchToEvictMs()));
    Verdict v = SchedulingFigures.preemption(pre.preemptToEvictMs(), slurmPoll);
    out.printf(
        "preempt -> evict p99 target <= %d ms (Slurm poll + 1 s; from the later of preemptTime"
            + " and the sbatch launch): %s%n",
        SchedulingFigures.preemptionTargetMs(slurmPoll), v);
    if (pre.failed() > 0) {
      out.printf("%d preemption trials gave no sample%n", pre.failed());
    }
    if (leftovers > 0) {
      out.printf("%d placeholders outlived their deleted pods by %ds%n", leftovers, 60);
    }
    out.println(workerHistogram());
    out.flush();
  }

  /** The worker's own preemption → eviction histogram, as count / mean / max. */
  private String workerHistogram() {
    if (metrics == null) {
      return "worker tandem_preemption_to_eviction_seconds: no /metrics given";
    }
    try {
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(5)).build(),
                  HttpResponse.BodyHandlers.ofString());
      return WorkerHistogram.describe(r.body());
    } catch (IOException e) {
      return "worker tandem_preemption_to_eviction_seconds: /metrics unreachable: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "worker tandem_preemption_to_eviction_seconds: interrupted";
    }
  }
}
