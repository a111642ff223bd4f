package dev.tandem.bench;

import dev.tandem.dev.FleetStack;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.TimelineEntry;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;

/**
 * {@code tandem bench fleet}: N nodes in NodeSets of at most {@code perNodeSet} (one NodeSet {@code
 * fleet} up to that size, else {@code fleet0}, {@code fleet1}, ...) on a simulated fleet ({@link
 * FleetStack}, {@link SimKubelet}), measured from outside by a {@link FleetSampler}. Phases, in
 * order:
 *
 * <ol>
 *   <li>provision: apply the NodeSet; done when its status shows N ready and the sampler sees all N
 *       in service;
 *   <li>rolling update ({@code maxUnavailable: 10%}): change the image; done when the status shows
 *       N updated and ready at the new revision and the sampler sees all N in service. The
 *       sampler's largest out-of-service count is compared with the budget; the ideal time is waves
 *       ({@code ceil(N / budget)}) × the median node cycle ({@link NodeCycles}: update requested to
 *       registered again, as each node workflow recorded it in this rollout);
 *   <li>cordon: 10% of the Kubernetes nodes (every tenth that hosts a slurmd pod) cordoned at once
 *       from a thread pool; per node, from its cordon to the first sample showing its Slurm node
 *       drained; then all uncordoned, and done when all N are in service again;
 *   <li>at rest: the sampler stops (its reads would count), then for {@code rest}: the worker's CPU
 *       time, slurmrestd requests (the fake's counter), Kubernetes API requests from Tandem's
 *       clients (the API server's audit log, {@code TandemRequests}), Temporal actions (workflow
 *       tasks, from the SDK's {@code temporal_workflow_task_execution_latency_seconds_count}, plus
 *       activities started, {@code tandem_activity_started_total}), per minute;
 *   <li>the worker's RSS, and the largest history length ({@link HistoryLengths}): the current runs
 *       of the NodeSet's and every node's workflow sampled after every phase, and every run that
 *       continued as new, as visibility recorded it;
 *   <li>per phase, the CPU seconds of each process ({@link CpuShares}).
 * </ol>
 */
public final class FleetBench {
  static final String NAMESPACE = "default";
  static final String NODESET = "fleet";

  /** The NodeSets, in order, and how many nodes each has. */
  private final Map<String, Integer> nodeSets = new LinkedHashMap<>();

  /** How long one phase may take before the bench gives up (bounded, not a target). */
  private final Duration phaseLimit;

  private final FleetStack stack;
  private final SimKubelet kubelet;
  private final FleetSampler sampler;
  private final HistoryLengths histories;
  private Path historyDir;
  private Duration settle = Duration.ZERO;
  private final WorkflowClient temporal;
  private final int nodes;
  private final PrintWriter out;

  public FleetBench(
      FleetStack stack,
      SimKubelet kubelet,
      WorkflowClient temporal,
      int nodes,
      int perNodeSet,
      Duration phaseLimit,
      PrintWriter out) {
    this.stack = stack;
    this.kubelet = kubelet;
    this.nodes = nodes;
    this.phaseLimit = phaseLimit;
    this.out = out;
    int sets = (nodes + perNodeSet - 1) / perNodeSet;
    for (int k = 0; k < sets; k++) {
      int n = Math.min(perNodeSet, nodes - k * perNodeSet);
      nodeSets.put(sets == 1 ? NODESET : NODESET + k, n);
    }
    List<String> pods = new ArrayList<>();
    nodeSets.forEach(
        (name, n) -> {
          for (int i = 0; i < n; i++) {
            pods.add(Names.podName(name, i));
          }
        });
    this.sampler = new FleetSampler(stack.fake()::nodeLooks, kubelet, NAMESPACE, pods);
    this.histories = new HistoryLengths(temporal);
    this.temporal = temporal;
  }

  /** 10% of {@code n}, rounded down, at least 1: the rollout budget (nodeset.md). */
  static int budget(int n) {
    return Math.max(1, n * 10 / 100);
  }

  /** The rollout budget of all NodeSets together. */
  int budget() {
    return nodeSets.values().stream().mapToInt(FleetBench::budget).sum();
  }

  /** Waves of the largest NodeSet's rollout (they roll side by side). */
  int waves() {
    return nodeSets.values().stream()
        .mapToInt(n -> (n + budget(n) - 1) / budget(n))
        .max()
        .orElse(0);
  }

  static String manifest(String name, int replicas, String image) {
    return "apiVersion: tandem.dev/v1alpha1\nkind: NodeSet\nmetadata:\n  name: "
        + name
        + "\n  namespace: "
        + NAMESPACE
        + "\nspec:\n  replicas: "
        + replicas
        + "\n  template:\n    spec:\n      containers:\n      - name: slurmd\n        image: "
        + image
        + "\n  updateStrategy:\n    type: RollingUpdate\n    rollingUpdate:\n"
        + "      maxUnavailable: \"10%\"\n";
  }

  public FleetFigures run(Duration rest) throws Exception {
    return run(rest, true);
  }

  /** The phases in order; without {@code rollout} the rolling update is left out. */
  public FleetFigures run(Duration rest, boolean rollout) throws Exception {
    FleetFigures f = new FleetFigures(nodes, budget(), waves(), nodeSets.size());
    CpuShares cpu = new CpuShares(stack.worker().pid());
    sampler.start(Duration.ofMillis(100));
    try {
      CpuShares.Sample c0 = cpu.take();
      provision(f);
      CpuShares.Sample c1 = cpu.take();
      f.cpu.add(CpuShares.describe("provision", c0, c1, nodes));
      if (rollout) {
        rollingUpdate(f);
        CpuShares.Sample c2 = cpu.take();
        f.cpu.add(CpuShares.describe("rolling update", c1, c2, nodes));
        c1 = c2;
      }
      cordon(f);
      f.cpu.add(CpuShares.describe("cordon and uncordon", c1, cpu.take(), budget()));
    } finally {
      sampler.stop();
    }
    atRest(f, rest);
    long pid = stack.worker().pid();
    f.rssBytes = ProcStats.rssBytes(pid);
    sampleHistories();
    histories.sampleContinued(100_000);
    f.longest = histories.largest();
    return f;
  }

  private void provision(FleetFigures f) throws Exception {
    say("provision: %d nodes in %d NodeSet(s)", nodes, nodeSets.size());
    long t0 = System.nanoTime();
    nodeSets.forEach((name, n) -> apply(manifest(name, n, "slurmd:v1")));
    await("all nodes ready", () -> statusDone(null) && sampler.out() == 0);
    f.provision = Duration.ofNanos(System.nanoTime() - t0);
    sampleHistories();
  }

  private void rollingUpdate(FleetFigures f) throws Exception {
    Map<String, String> before = new HashMap<>();
    for (String name : nodeSets.keySet()) {
      before.put(name, (String) status(name).get("updateRevision"));
    }
    say("rolling update: budget %d of %d", f.budget, nodes);
    sampler.awaitNextSample(Duration.ofSeconds(30));
    sampler.resetMax();
    long t0 = System.nanoTime();
    f.rolloutFrom = java.time.Instant.now();
    nodeSets.forEach((name, n) -> apply(manifest(name, n, "slurmd:v2")));
    await("rollout done", () -> statusDone(before) && sampler.out() == 0);
    f.rollout = Duration.ofNanos(System.nanoTime() - t0);
    f.maxOut = sampler.maxOut();
    f.spells = sampler.spells();
    List<List<TimelineEntry>> timelines = NodeCycles.timelines(temporal, nodeWorkflowIds());
    f.nodeCycles = NodeCycles.measure(timelines);
    f.refillGaps = NodeCycles.refillGaps(timelines, f.budget);
    f.rolloutEnds = NodeCycles.ends(timelines, f.rolloutFrom);
    sampleHistories();
    writeHistories();
  }

  private void cordon(FleetFigures f) throws Exception {
    Map<String, String> hosts = kubelet.podsByName();
    List<String[]> picked = new ArrayList<>(); // {pod, k8s node}
    List<String> sorted = new ArrayList<>(hosts.keySet());
    sorted.sort(null);
    for (int i = 0; i < sorted.size() && picked.size() < budget(); i += 10) {
      picked.add(new String[] {sorted.get(i), hosts.get(sorted.get(i))});
    }
    say("cordon: %d Kubernetes nodes at once", picked.size());
    sampler.watchDrains();
    long[] cordonedAt = new long[picked.size()];
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < picked.size(); i++) {
        int k = i;
        done.add(
            pool.submit(
                () -> {
                  cordonedAt[k] = System.nanoTime();
                  setUnschedulable(picked.get(k)[1], true);
                }));
      }
      for (Future<?> d : done) {
        d.get();
      }
      await(
          "cordoned nodes drained in Slurm",
          () -> picked.stream().allMatch(p -> sampler.drainSeen().containsKey(p[0])));
      Map<String, Long> seen = sampler.drainSeen();
      for (int i = 0; i < picked.size(); i++) {
        f.cordonDrainNanos.add(seen.get(picked.get(i)[0]) - cordonedAt[i]);
      }
      say("uncordon and wait for all in service");
      for (String[] p : picked) {
        setUnschedulable(p[1], false);
      }
    } finally {
      pool.shutdownNow();
    }
    await("uncordoned nodes back in service", () -> sampler.out() == 0);
    sampleHistories();
  }

  private void atRest(FleetFigures f, Duration rest) throws InterruptedException, IOException {
    if (!settle.isZero()) {
      say("settle for %ds", settle.toSeconds());
      Thread.sleep(settle.toMillis());
    }
    f.settleMinutes = settle.toSeconds() / 60.0;
    say("at rest for %ds", rest.toSeconds());
    long pid = stack.worker().pid();
    String scrape0 = ProcStats.scrape(stack.worker().metricsUrl());
    double cpu0 = ProcStats.cpuSeconds(pid);
    long slurm0 = stack.fake().requests();
    long k8s0 = stack.tandemRequests();
    long t0 = System.nanoTime();
    Thread.sleep(rest.toMillis());
    double cpu1 = ProcStats.cpuSeconds(pid);
    long slurm1 = stack.fake().requests();
    long k8s1 = stack.tandemRequests();
    String scrape1 = ProcStats.scrape(stack.worker().metricsUrl());
    double minutes = (System.nanoTime() - t0) / 60e9;
    say(
        "the worker's /metrics at rest: %,d bytes, %,d lines",
        scrape1.getBytes(StandardCharsets.UTF_8).length, scrape1.lines().count());
    f.restMinutes = minutes;
    f.workerCores = (cpu1 - cpu0) / (minutes * 60);
    f.slurmPerMin = (slurm1 - slurm0) / minutes;
    f.k8sPerMin = (k8s1 - k8s0) / minutes;
    f.workflowTasksPerMin = (tasks(scrape1) - tasks(scrape0)) / minutes;
    f.activitiesPerMin = (activities(scrape1) - activities(scrape0)) / minutes;
    f.restActivities =
        perMinute(
            ProcStats.byLabel(scrape0, "tandem_activity_started_total", "activity"),
            ProcStats.byLabel(scrape1, "tandem_activity_started_total", "activity"),
            minutes);
    f.restTasks =
        perMinute(
            ProcStats.byLabel(
                scrape0, "temporal_workflow_task_execution_latency_seconds_count", "workflow_type"),
            ProcStats.byLabel(
                scrape1, "temporal_workflow_task_execution_latency_seconds_count", "workflow_type"),
            minutes);
  }

  /** Per minute, by label value, largest first: what the window added to each counter. */
  static Map<String, Double> perMinute(
      Map<String, Double> before, Map<String, Double> after, double minutes) {
    List<Map.Entry<String, Double>> rates = new ArrayList<>();
    after.forEach(
        (k, v) -> {
          double d = (v - before.getOrDefault(k, 0.0)) / minutes;
          if (d > 0) {
            rates.add(Map.entry(k, d));
          }
        });
    rates.sort(Map.Entry.<String, Double>comparingByValue().reversed());
    Map<String, Double> out = new LinkedHashMap<>();
    rates.forEach(e -> out.put(e.getKey(), e.getValue()));
    return out;
  }

  static double tasks(String scrape) {
    return ProcStats.sum(scrape, "temporal_workflow_task_execution_latency_seconds_count");
  }

  static double activities(String scrape) {
    return ProcStats.sum(scrape, "tandem_activity_started_total");
  }

  /**
   * {@code --histories DIR}: after the rollout, each NodeSet's workflow history (its last runs,
   * followed back through continue-as-new) and two node workflows', as JSON the Temporal CLI reads,
   * to see where a rollout's time went between the node cycles.
   */
  public FleetBench histories(Path dir) {
    this.historyDir = dir;
    return this;
  }

  /**
   * {@code --settle}: how long the fleet stays untouched before the at-rest window. Right after the
   * cordon the nodes it signalled re-read at their shortest wait ({@code TANDEM_NODE_RESYNC}), and
   * only a re-read that finds nothing new settles a node at {@code TANDEM_NODE_REST_MAX}
   * (docs/architecture.md, "Safety re-reads at rest"): a window right after the cordon measures
   * that, not a quiet fleet.
   */
  public FleetBench settle(Duration d) {
    this.settle = d;
    return this;
  }

  private void writeHistories() throws IOException {
    if (historyDir == null) {
      return;
    }
    Files.createDirectories(historyDir);
    for (String name : nodeSets.keySet()) {
      String id = Names.nodeSetWorkflowId(NAMESPACE, name);
      String runId = "";
      for (int run = 0; run < 6; run++) {
        WorkflowExecutionHistory h = temporal.fetchHistory(id, runId.isEmpty() ? null : runId);
        Files.writeString(
            historyDir.resolve("nodeset-" + name + "-run" + run + ".json"), h.toJson(false));
        runId =
            h.getHistory()
                .getEvents(0)
                .getWorkflowExecutionStartedEventAttributes()
                .getContinuedExecutionRunId();
        if (runId.isEmpty()) {
          break;
        }
      }
      for (int i = 0; i < 2; i++) {
        String node = Names.podName(name, i);
        Files.writeString(
            historyDir.resolve("node-" + node + ".json"),
            temporal.fetchHistory(Names.nodeWorkflowId(NAMESPACE, node)).toJson(false));
      }
    }
    say("wrote workflow histories to %s", historyDir);
  }

  private void sampleHistories() {
    List<String> ids = new ArrayList<>();
    for (String name : nodeSets.keySet()) {
      ids.add(Names.nodeSetWorkflowId(NAMESPACE, name));
    }
    ids.addAll(nodeWorkflowIds());
    histories.sample(ids);
  }

  private List<String> nodeWorkflowIds() {
    List<String> ids = new ArrayList<>();
    nodeSets.forEach(
        (name, n) -> {
          for (int i = 0; i < n; i++) {
            ids.add(Names.nodeWorkflowId(NAMESPACE, Names.podName(name, i)));
          }
        });
    return ids;
  }

  /** As {@code kubectl cordon} does: a patch, not an update that conflicts with node status. */
  private void setUnschedulable(String node, boolean on) {
    stack
        .kubernetes()
        .nodes()
        .withName(node)
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"spec\":{\"unschedulable\":" + on + "}}");
  }

  private void apply(String yaml) {
    GenericKubernetesResource r = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
    NodeSetResources.generic(stack.kubernetes()).resource(r).createOr(e -> e.update());
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> status(String name) {
    GenericKubernetesResource r =
        NodeSetResources.generic(stack.kubernetes()).inNamespace(NAMESPACE).withName(name).get();
    Object s = r == null ? null : r.getAdditionalProperties().get("status");
    return s instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  /**
   * Every NodeSet has all its nodes ready and updated, at one revision that is not the one in
   * {@code notRevision} (none when null).
   */
  private boolean statusDone(Map<String, String> notRevision) {
    for (Map.Entry<String, Integer> set : nodeSets.entrySet()) {
      Map<String, Object> s = status(set.getKey());
      Object upd = s.get("updateRevision");
      boolean done =
          num(s.get("readyReplicas")) == set.getValue()
              && num(s.get("updatedReplicas")) == set.getValue()
              && upd != null
              && upd.equals(s.get("currentRevision"))
              && (notRevision == null || !upd.equals(notRevision.get(set.getKey())));
      if (!done) {
        return false;
      }
    }
    return true;
  }

  private static long num(Object o) {
    return o instanceof Number n ? n.longValue() : -1;
  }

  private void await(String what, BooleanSupplier done) throws InterruptedException {
    long end = System.nanoTime() + phaseLimit.toNanos();
    long nextReport = System.nanoTime() + 30_000_000_000L;
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new IllegalStateException(
            what
                + ": not within "
                + phaseLimit.toSeconds()
                + "s ("
                + brief()
                + ", out of service "
                + sampler.out()
                + ")");
      }
      if (System.nanoTime() > nextReport) {
        say(
            "  ... waiting for %s: out of service %d,%s status %s",
            what, sampler.out(), sampler.whyOut(), brief());
        nextReport = System.nanoTime() + 30_000_000_000L;
      }
      Thread.sleep(100);
    }
  }

  private String brief() {
    long ready = 0;
    long updated = 0;
    for (String name : nodeSets.keySet()) {
      Map<String, Object> s = status(name);
      ready += Math.max(0, num(s.get("readyReplicas")));
      updated += Math.max(0, num(s.get("updatedReplicas")));
    }
    return "ready=" + ready + " updated=" + updated;
  }

  private void say(String format, Object... args) {
    out.printf(format + "%n", args);
    out.flush();
  }
}
