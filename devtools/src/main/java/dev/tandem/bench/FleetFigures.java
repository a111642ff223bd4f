package dev.tandem.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The figures of one {@code tandem bench fleet} run and the targets (issue 14, item 3), as
 * a Markdown table. A target that cannot be judged from one run says so instead of passing.
 */
public final class FleetFigures {
  static final double ROLLOUT_FACTOR = 1.2;
  static final long CORDON_P99_MS = 2000;
  static final double WORKER_CORES = 0.25;
  static final long RSS_BYTES = 1L << 30;

  public final int nodes;
  public final int budget;
  private final int waves;
  final int nodeSets;
  Duration provision;
  Duration rollout;
  int maxOut;
  List<Long> spells = List.of();
  List<Long> nodeCycles = List.of();

  /** {@link NodeCycles#refillGaps}: how long freed rollout slots stayed empty. */
  List<Long> refillGaps = List.of();

  /** When the rollout's spec was applied, and its first update and last return (node clocks). */
  java.time.Instant rolloutFrom;

  java.time.Instant[] rolloutEnds = new java.time.Instant[2];

  final List<Long> cordonDrainNanos = new ArrayList<>();

  /** Per phase, where the machine's CPU went ({@link CpuShares#describe}). */
  final List<String> cpu = new ArrayList<>();

  double restMinutes;
  double settleMinutes;

  /** At rest, per minute: activities started by type, workflow tasks by workflow type. */
  Map<String, Double> restActivities = Map.of();

  Map<String, Double> restTasks = Map.of();
  double workerCores;
  double slurmPerMin;
  double k8sPerMin;
  double workflowTasksPerMin;
  double activitiesPerMin;
  long rssBytes;
  HistoryLengths.Longest longest;

  FleetFigures(int nodes, int budget, int waves, int nodeSets) {
    this.nodes = nodes;
    this.budget = budget;
    this.waves = waves;
    this.nodeSets = nodeSets;
  }

  public int maxOut() {
    return maxOut;
  }

  public int drainsMeasured() {
    return cordonDrainNanos.size();
  }

  public long largestHistory() {
    return longest == null ? 0 : longest.events();
  }

  /** Waves of the rollout: ceil(n / budget) of the largest NodeSet (NodeSets roll side by side). */
  int waves() {
    return waves;
  }

  /**
   * Median cycle of one node in the rollout: update requested to registered again, from the node
   * workflows' timelines ({@link NodeCycles}).
   */
  public Duration cycle() {
    return Duration.ofNanos(quantile(nodeCycles, 0.5));
  }

  /** Median out-of-service spell in Slurm, as the sampler saw it (shorter than the cycle). */
  Duration spell() {
    return Duration.ofNanos(quantile(spells, 0.5));
  }

  Duration ideal() {
    return cycle().multipliedBy(waves());
  }

  /** The q-quantile (nearest rank) of {@code values}; 0 for none. */
  static long quantile(List<Long> values, double q) {
    if (values.isEmpty()) {
      return 0;
    }
    List<Long> s = new ArrayList<>(values);
    s.sort(null);
    int rank = (int) Math.ceil(q * s.size());
    return s.get(Math.max(0, Math.min(s.size() - 1, rank - 1)));
  }

  /** The table: phase, figure, target, PASS/MISS (or n/a with why). */
  public String table() {
    StringBuilder b = new StringBuilder();
    b.append("| phase | figure | target | result |\n|---|---|---|---|\n");
    double perSec = nodes / (provision.toNanos() / 1e9);
    row(
        b,
        "provision " + nodes + " nodes" + (nodeSets > 1 ? " in " + nodeSets + " NodeSets" : ""),
        f("%s, %.1f nodes ready/s", sec(provision), perSec),
        "—",
        "—");
    if (rollout == null) {
      row(b, "rolling update", "not run (--no-rollout)", "—", "—");
    } else {
      rolloutRows(b);
    }
    cordonAndRestRows(b);
    if (rollout != null) {
      b.append('\n').append(rolloutSpread());
    }
    b.append('\n').append(breakdown());
    if (!cpu.isEmpty()) {
      b.append(
          "\n\nCPU seconds by process, per phase (per item: per node; cordon: per cordoned node):\n");
      cpu.forEach(line -> b.append("- ").append(line.strip()).append('\n'));
    }
    return b.toString();
  }

  /**
   * Below the table: where the rollout's time went besides the node cycles the ideal counts: how
   * soon the first node was asked to update, how the cycles spread (the ideal takes the median, the
   * rollout pays for the slow ones), and how long after the last node came back the bench saw the
   * rollout done (the NodeSet's status and the sampler's view of Slurm).
   */
  String rolloutSpread() {
    double mean = nodeCycles.stream().mapToLong(Long::longValue).average().orElse(0) / 1e9;
    String first =
        rolloutEnds[0] == null
            ? "none recorded"
            : sec(Duration.between(rolloutFrom, rolloutEnds[0])) + " after the spec";
    String last =
        rolloutEnds[1] == null
            ? "none recorded"
            : sec(Duration.between(rolloutEnds[1], rolloutFrom.plus(rollout)))
                + " before the rollout was seen done";
    return f(
        "Rollout spread: first update asked %s; node cycle mean %.1f s, median %s, p90 %s, max %s;"
            + " last node back %s.\n",
        first,
        mean,
        sec(cycle()),
        sec(Duration.ofNanos(quantile(nodeCycles, 0.9))),
        sec(Duration.ofNanos(quantile(nodeCycles, 1.0))),
        last);
  }

  /**
   * Below the table: how long the fleet was left alone before the at-rest window, and what the
   * window's Temporal actions were, by activity and by workflow type (the largest five of each).
   */
  String breakdown() {
    return f(
        "At rest (%.1f min, after %.1f min untouched), per minute: activities %s; workflow tasks"
            + " %s.\n",
        restMinutes, settleMinutes, top(restActivities), top(restTasks));
  }

  private static String top(Map<String, Double> rates) {
    if (rates.isEmpty()) {
      return "none";
    }
    StringBuilder b = new StringBuilder();
    rates.entrySet().stream()
        .limit(5)
        .forEach(
            e ->
                b.append(b.length() == 0 ? "" : ", ")
                    .append(f("%s %.1f", e.getKey(), e.getValue())));
    return b.toString();
  }

  private void rolloutRows(StringBuilder b) {
    double ratio = rollout.toNanos() / (double) Math.max(1, ideal().toNanos());
    row(
        b,
        "rolling update, maxUnavailable 10%",
        f(
            "%s; ideal %d waves × %s (median node cycle of %d) = %s; ratio %.2f"
                + " (median out-of-service spell in Slurm %s; a freed slot refilled after p50 %s,"
                + " p90 %s)",
            sec(rollout),
            waves(),
            sec(cycle()),
            nodeCycles.size(),
            sec(ideal()),
            ratio,
            sec(spell()),
            sec(Duration.ofNanos(quantile(refillGaps, 0.5))),
            sec(Duration.ofNanos(quantile(refillGaps, 0.9)))),
        "≤ 1.2 × ideal",
        ratio <= ROLLOUT_FACTOR ? "PASS" : "MISS");
    row(
        b,
        "rolling update, most nodes out at once",
        f("%d (budget %d)", maxOut, budget),
        "never over budget",
        maxOut <= budget ? "PASS" : "MISS");
  }

  private void cordonAndRestRows(StringBuilder b) {
    long p50 = quantile(cordonDrainNanos, 0.5) / 1_000_000;
    long p99 = quantile(cordonDrainNanos, 0.99) / 1_000_000;
    long max = quantile(cordonDrainNanos, 1.0) / 1_000_000;
    row(
        b,
        "cordon " + cordonDrainNanos.size() + " k8s nodes → Slurm drained",
        f("p50 %d ms, p99 %d ms, max %d ms (100 ms sampling)", p50, p99, max),
        "p99 ≤ 2 s at 1,000 nodes",
        nodes < 1000 ? "n/a (< 1,000 nodes)" : p99 <= CORDON_P99_MS ? "PASS" : "MISS");
    row(
        b,
        f("at rest %.1f min: worker CPU", restMinutes),
        f("%.3f cores", workerCores),
        "≤ 0.25 core",
        workerCores <= WORKER_CORES ? "PASS" : "MISS");
    row(
        b,
        "at rest: slurmrestd requests",
        f("%.1f /min", slurmPerMin),
        "not growing with N",
        "compare runs");
    row(
        b,
        "at rest: Kubernetes API requests (Tandem's)",
        f("%.1f /min", k8sPerMin),
        "not growing with N",
        "compare runs");
    row(
        b,
        "at rest: Temporal actions",
        f(
            "%.1f /min (%.1f workflow tasks + %.1f activities)",
            workflowTasksPerMin + activitiesPerMin, workflowTasksPerMin, activitiesPerMin),
        "not growing with N",
        "compare runs");
    row(
        b,
        "worker RSS at the end",
        f("%.0f MiB", rssBytes / 1048576.0),
        "≤ 1 GiB",
        rssBytes <= RSS_BYTES ? "PASS" : "MISS");
    row(
        b,
        "largest history length",
        longest == null || longest.workflowId() == null
            ? "none sampled"
            : f("%d events (%s)", longest.events(), longest.workflowId()),
        "bounded (continue-as-new)",
        "—");
  }

  private static void row(StringBuilder b, String phase, String figure, String target, String r) {
    b.append("| ")
        .append(phase)
        .append(" | ")
        .append(figure)
        .append(" | ")
        .append(target)
        .append(" | ")
        .append(r)
        .append(" |\n");
  }

  private static String sec(Duration d) {
    return f("%.1f s", d.toNanos() / 1e9);
  }

  private static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
