package dev.tandem.devtools;

import dev.tandem.cli.CliException;
import dev.tandem.cli.Durations;
import dev.tandem.slurm.HttpSlurmTransport;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmClients;
import dev.tandem.slurm.SlurmEnvFile;
import dev.tandem.slurm.bench.CountingTransport;
import dev.tandem.slurm.bench.PollCostBench;
import dev.tandem.slurm.fake.FakePartition;
import dev.tandem.slurm.fake.FakeSlurmrestd;
import dev.tandem.slurm.local.LocalSlurmScript;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tandem bench slurm-poll}: what the Slurm watcher's poll costs at fleet size, on the real
 * local Slurm 22.05 (a private instance with {@code --nodes} static nodes of which only two run a
 * slurmd: the rest are DOWN/NOT_RESPONDING, which is enough for listing, drain and undrain) and on
 * the simulated fleet ({@link FakeSlurmrestd}, v0.0.44), side by side. See {@link PollCostBench}.
 */
@Command(
    name = "slurm-poll",
    description =
        "bytes, requests and latency of the Slurm watcher's poll (incremental and full resync)"
            + " at --nodes nodes, on a private real Slurm and on the simulated fleet.",
    mixinStandardHelpOptions = true)
final class BenchSlurmPoll implements Callable<Integer> {
  /** Ports of the private Slurm: apart from the tests' (6817), tandem dev's (6827) and helpers'. */
  static final int PORT_BASE = 6847;

  static final int NODE_PORT_BASE = 41001;

  @Option(names = "--nodes", defaultValue = "1000", description = "Slurm nodes (default 1000)")
  int nodes;

  @Option(
      names = "--changes",
      defaultValue = "1",
      description = "percent of the nodes drained per changing cycle (default 1)")
  double changesPercent;

  @Option(names = "--cycles", defaultValue = "10", description = "changing cycles (default 10)")
  int cycles;

  @Option(
      names = "--samples",
      defaultValue = "10",
      description = "full and idle polls each (default 10)")
  int samples;

  @Option(
      names = "--interval",
      defaultValue = "2s",
      description = "time between polls (default ${DEFAULT-VALUE}, the product's poll interval)")
  String interval;

  @Option(
      names = "--target",
      defaultValue = "both",
      description = "real, fake or both (default ${DEFAULT-VALUE})")
  String target;

  @Option(
      names = "--env",
      description =
          "measure this running Slurm (its slurm.env) instead of starting a private one; its"
              + " nodes must include n3..nN")
  Path env;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (nodes < 10 || nodes > 20_000) {
      throw new CliException("--nodes must be between 10 and 20000, got " + nodes);
    }
    if (!List.of("real", "fake", "both").contains(target)) {
      throw new CliException("--target must be real, fake or both, got " + target);
    }
    int perCycle = Math.max(1, (int) Math.round(nodes * changesPercent / 100.0));
    Duration cycle = Durations.parse(interval);
    if (!target.equals("fake")) {
      real(out, perCycle, cycle);
    }
    if (!target.equals("real")) {
      fake(out, perCycle, cycle);
    }
    return 0;
  }

  private void real(PrintWriter out, int perCycle, Duration cycle) throws Exception {
    Map<String, String> scriptEnv = new HashMap<>(System.getenv());
    LocalSlurmScript.Running running = null;
    Path envFile = env;
    if (envFile == null) {
      scriptEnv.put("TANDEM_SLURM_DIR", "/var/tmp/tandem-bench-slurm");
      scriptEnv.put("TANDEM_SLURM_PORT_BASE", Integer.toString(PORT_BASE));
      scriptEnv.put("TANDEM_SLURM_NODE_PORT_BASE", Integer.toString(NODE_PORT_BASE));
      scriptEnv.put("TANDEM_SLURM_NODES", Integer.toString(nodes));
      scriptEnv.put("TANDEM_SLURM_NODES_UP", "2");
      scriptEnv.put("TANDEM_SLURM_MAX_NODES", Integer.toString(nodes + 256));
      scriptEnv.put("TANDEM_SLURM_POOLS", "spare:1"); // the script has no "no pools"
      Path script = LocalSlurmScript.find(scriptEnv);
      // A leftover instance may have another node count: always start from a fresh config.
      LocalSlurmScript.run(script, scriptEnv, LocalSlurmScript.STOP_TIMEOUT, "stop");
      out.printf("starting a private Slurm 22.05 with %d nodes (2 with a slurmd)%n", nodes);
      out.flush();
      running = LocalSlurmScript.ensureRunning(script, scriptEnv);
      envFile = running.envFile();
    }
    try {
      Map<String, String> clientEnv = new HashMap<>(System.getenv());
      clientEnv.putAll(SlurmEnvFile.read(envFile));
      SlurmClientConfig cfg = SlurmClientConfig.fromEnv(clientEnv);
      List<String> names = IntStream.rangeClosed(3, nodes).mapToObj(i -> "n" + i).toList();
      measure("real Slurm 22.05 (slurmrestd v0.0.38)", cfg, names, perCycle, cycle, out);
    } finally {
      if (running != null) {
        LocalSlurmScript.run(running.script(), scriptEnv, LocalSlurmScript.STOP_TIMEOUT, "stop");
      }
    }
  }

  private void fake(PrintWriter out, int perCycle, Duration cycle) throws Exception {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    List<FakeSlurmrestd.NodeSpec> specs = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      String name = "node-" + i;
      names.add(name);
      specs.add(new FakeSlurmrestd.NodeSpec(name, 64, 512_000, List.of("h100"), "gpu:h100:8"));
    }
    try (FakeSlurmrestd fake =
        FakeSlurmrestd.start(
            FakeSlurmrestd.Options.defaults(key), List.of(FakePartition.all("low", 1)), specs)) {
      SlurmClientConfig cfg = fake.clientConfig(Duration.ofDays(1));
      measure("simulated fleet (FakeSlurmrestd, v0.0.44)", cfg, names, perCycle, cycle, out);
    }
  }

  private void measure(
      String what,
      SlurmClientConfig cfg,
      List<String> names,
      int perCycle,
      Duration cycle,
      PrintWriter out)
      throws InterruptedException {
    CountingTransport counting = new CountingTransport(new HttpSlurmTransport(cfg));
    try (SlurmClient client = SlurmClients.create(counting, cfg)) {
      client.listNodes(null); // warm up the connection
      PollCostBench bench = new PollCostBench(client, counting, names, cycle, out);
      PollCostBench.Result r = bench.run(samples, cycles, perCycle);
      bench.print(what + ", " + perCycle + " nodes drained per changing cycle", nodes, r);
    }
  }
}
