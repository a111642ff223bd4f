package dev.tandem.devtools;

import dev.tandem.bench.Machine;
import dev.tandem.bench.SlurmCommand;
import dev.tandem.cli.Durations;
import dev.tandem.dev.DevStack;
import dev.tandem.dev.Manifests;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmClients;
import dev.tandem.slurm.SlurmJob;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tandem bench autoscale}: the time from {@code sbatch} to RUNNING of a one-node job on an
 * autoscaled NodeSet at zero (a node is started for it), against the same job submitted while that
 * node is up and idle, on a local stack it starts and stops.
 *
 * <ol>
 *   <li>A NodeSet {@code auto} at 0 on partition {@code gpu} (dynamic nodes with feature {@code
 *       h100}, which the local Slurm's {@code gpu} partition takes), {@code maxReplicas: 1}, the
 *       given {@code idleTime}.
 *   <li>Each trial: with no node up, submit {@code sbatch -p gpu -N 1 --exclusive} of a 1 s sleep
 *       and time it to RUNNING (cold); once it ended, submit the same job again while the node is
 *       idle and time that (warm); then wait until the NodeSet is back at zero.
 *   <li>Print every trial, the median and maximum of each side and the ratio of the medians, with
 *       the machine. Exit 1 when a job did not run within the limit.
 * </ol>
 */
@Command(
    name = "autoscale",
    description =
        "sbatch -> RUNNING of a job on an autoscaled NodeSet at zero, against the same job on an"
            + " idle node already up, on a local stack it starts and stops.",
    mixinStandardHelpOptions = true)
final class BenchAutoscale implements Callable<Integer> {
  private static final String SET = "auto";
  private static final Duration LIMIT = Duration.ofMinutes(3);

  @Option(names = "--trials", defaultValue = "5", description = "cold/warm pairs (default 5)")
  int trials;

  @Option(
      names = "--idle-time",
      defaultValue = "30s",
      description = "the NodeSet's idleTime: how long a trial waits to be back at zero (30s)")
  String idleTime;

  @Option(
      names = "--slurm-poll",
      defaultValue = "2s",
      description = "the Slurm watcher's poll interval (default ${DEFAULT-VALUE}, the product's)")
  String slurmPoll;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    Durations.parse(idleTime);
    Path dir = Files.createTempDirectory("tandem-bench-");
    out.printf("machine: %s%n", Machine.describe());
    out.printf("starting a local stack (Slurm poll interval %s)%n", slurmPoll);
    try (DevStack stack =
        DevStack.start(
            new DevStack.Options(dir, 0, 0, 0, 1, Map.of("TANDEM_SLURM_POLL_INTERVAL", slurmPoll)),
            out)) {
      stack.apply(
          new ByteArrayInputStream(
              Manifests.nodeSet(
                      SET,
                      0,
                      "slurmd:bench",
                      "  slurm:\n    partitions: [gpu]\n    features: [h100]\n"
                          + "  autoscaling:\n    minReplicas: 0\n    maxReplicas: 1\n"
                          + "    idleTime: "
                          + idleTime
                          + "\n    scaleUpDelay: 0s\n")
                  .getBytes(StandardCharsets.UTF_8)));
      try (SlurmClient slurm =
          SlurmClients.create(SlurmClientConfig.fromEnv(stack.slurm().env()))) {
        return measure(stack, slurm, stack.slurm().env().get("SLURM_CONF"), out);
      } finally {
        NodeSetResources.generic(stack.kubernetes()).inNamespace("default").withName(SET).delete();
        BenchCommand.Watchers.awaitGone(stack, SET + "-0", Duration.ofMinutes(1));
      }
    }
  }

  private int measure(DevStack stack, SlurmClient slurm, String slurmConf, PrintWriter out)
      throws Exception {
    List<Double> cold = new ArrayList<>();
    List<Double> warm = new ArrayList<>();
    out.printf("%-6s %12s %12s%n", "trial", "cold (s)", "warm (s)");
    for (int i = 1; i <= trials; i++) {
      awaitAtZero(stack);
      Double c = toRunning(slurm, slurmConf);
      Double w = c == null ? null : toRunning(slurm, slurmConf);
      if (c == null || w == null) {
        out.printf("trial %d: a job did not run within %s%n", i, LIMIT);
        return 1;
      }
      cold.add(c);
      warm.add(w);
      out.printf("%-6d %12.2f %12.2f%n", i, c, w);
      out.flush();
    }
    double c50 = median(cold);
    double w50 = median(warm);
    out.printf(
        "from zero: p50 %.2f s, max %.2f s; on an idle node: p50 %.2f s, max %.2f s;"
            + " ratio of medians %.1f (%d trials)%n",
        c50, Collections.max(cold), w50, Collections.max(warm), c50 / w50, trials);
    return 0;
  }

  /** sbatch of a 1 s exclusive job on {@code gpu}; seconds to RUNNING once it ended, or null. */
  private static Double toRunning(SlurmClient slurm, String slurmConf)
      throws IOException, InterruptedException {
    long t0 = System.nanoTime();
    long id =
        SlurmCommand.sbatch(
            slurmConf, List.of("-p", "gpu", "-N", "1", "--exclusive", "--wrap", "sleep 1"));
    Double started = null;
    long end = t0 + LIMIT.toNanos();
    while (System.nanoTime() < end) {
      SlurmJob j = slurm.getJob(id);
      if (started == null && (j.running() || j.startTime() != null)) {
        started = (System.nanoTime() - t0) / 1e9;
      }
      if (started != null && !j.running() && j.endTime() != null) {
        return started;
      }
      Thread.sleep(50);
    }
    SlurmCommand.run(slurmConf, List.of("scancel", Long.toString(id)));
    return null;
  }

  private static void awaitAtZero(DevStack stack) throws InterruptedException {
    long end = System.nanoTime() + LIMIT.toNanos();
    while (System.nanoTime() < end
        && stack.kubernetes().pods().inNamespace("default").withName(SET + "-0").get() != null) {
      Thread.sleep(500);
    }
    if (stack.kubernetes().pods().inNamespace("default").withName(SET + "-0").get() != null) {
      throw new IllegalStateException(
          SET + " not back at zero within " + LIMIT + " (see its Autoscaled condition)");
    }
  }

  private static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }
}
