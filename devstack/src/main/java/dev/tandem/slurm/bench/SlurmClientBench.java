package dev.tandem.slurm.bench;

import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmClients;
import dev.tandem.slurm.SlurmEnvFile;
import dev.tandem.slurm.SlurmJob;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Latency of the Slurm client against a real slurmrestd (the local one by default): GET nodes,
 * submit → RUNNING of placeholder jobs (polling getJob), and drain+undrain round trips. Prints
 * p50/p99 per operation. Run with {@code scripts/bench-slurm.sh} (later {@code tandem bench
 * slurm}).
 *
 * <p>Arguments: {@code --env FILE} (default {@code $TANDEM_SLURM_DIR/slurm.env}), {@code --nodes N}
 * GET-nodes calls (200), {@code --jobs N} placeholders (50), {@code --drains N} round trips (50),
 * {@code --node NAME} node to drain (n1), {@code --partition P} (low).
 */
public final class SlurmClientBench {
  private static final Duration JOB_START_LIMIT = Duration.ofSeconds(30);
  private static final Duration POLL = Duration.ofMillis(20);

  private SlurmClientBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = parse(args);
    Path envFile =
        opts.containsKey("env")
            ? Path.of(opts.get("env"))
            : SlurmEnvFile.defaultPath(System.getenv());
    Map<String, String> env = new HashMap<>(System.getenv());
    env.putAll(SlurmEnvFile.read(envFile));
    SlurmClientConfig config = SlurmClientConfig.fromEnv(env);
    int nodeCalls = Integer.parseInt(opts.getOrDefault("nodes", "200"));
    int jobs = Integer.parseInt(opts.getOrDefault("jobs", "50"));
    int drains = Integer.parseInt(opts.getOrDefault("drains", "50"));
    String node = opts.getOrDefault("node", "n1");
    String partition = opts.getOrDefault("partition", "low");

    try (SlurmClient client = SlurmClients.create(config)) {
      SlurmClient.Ping ping = client.ping();
      System.out.printf(
          Locale.ROOT,
          "slurmrestd %s, API %s, Slurm %s, controller %s%n",
          config.base(),
          client.apiVersion().path(),
          ping.slurmVersion(),
          ping.controllerUp() ? "UP" : "DOWN");
      client.listNodes(null); // warm up the connection and JIT a little
      report("GET nodes", benchNodes(client, nodeCalls));
      report("submit -> RUNNING", benchJobs(client, jobs, partition));
      report("drain + undrain", benchDrains(client, drains, node));
    }
  }

  static List<Double> benchNodes(SlurmClient client, int n) {
    List<Double> ms = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      client.listNodes(null);
      ms.add((System.nanoTime() - t0) / 1e6);
    }
    return ms;
  }

  static List<Double> benchJobs(SlurmClient client, int n, String partition)
      throws InterruptedException {
    List<Double> ms = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      long id =
          client.submit(
              JobSubmission.builder("tandem-bench-" + i)
                  .comment("tandem bench slurm")
                  .partition(partition)
                  .nodeCount(1)
                  .build());
      try {
        long deadline = t0 + JOB_START_LIMIT.toNanos();
        while (true) {
          SlurmJob j = client.getJob(id);
          if (j.running()) {
            ms.add((System.nanoTime() - t0) / 1e6);
            break;
          }
          if (j.finished() || System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "bench job "
                    + id
                    + " did not reach RUNNING ("
                    + j.state()
                    + ", "
                    + j.stateReason()
                    + ")");
          }
          Thread.sleep(POLL.toMillis());
        }
      } finally {
        client.cancel(id, null);
      }
    }
    return ms;
  }

  static List<Double> benchDrains(SlurmClient client, int n, String node) {
    List<Double> ms = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        long t0 = System.nanoTime();
        client.drain(node, "tandem:manual: bench " + i);
        client.undrain(node);
        ms.add((System.nanoTime() - t0) / 1e6);
      }
    } finally {
      client.undrain(node);
    }
    return ms;
  }

  private static void report(String what, List<Double> ms) {
    System.out.println(Latencies.summary(what, ms));
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException(
            "usage: [--env FILE] [--nodes N] [--jobs N] [--drains N] [--node NAME]"
                + " [--partition P]; got "
                + Arrays.toString(args));
      }
      out.put(args[i].substring(2), args[++i]);
    }
    return out;
  }
}
