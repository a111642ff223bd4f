package dev.tandem.cli;

import dev.tandem.slurm.bench.SlurmClientBench;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tandem bench ...}: benchmarks that print figures against the real local stack. */
@Command(
    name = "bench",
    description = "Benchmarks against the local stack; they print p50/p99 figures.",
    mixinStandardHelpOptions = true,
    subcommands = {BenchCommand.Slurm.class})
final class BenchCommand implements Runnable {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The Slurm client against the local slurmrestd (scripts/slurm-local.sh start first). */
  @Command(
      name = "slurm",
      description = "GET nodes, submit->RUNNING and drain+undrain latency of the Slurm client.",
      mixinStandardHelpOptions = true)
  static final class Slurm implements Callable<Integer> {
    @Option(names = "--env", description = "Slurm env file (default $TANDEM_SLURM_DIR/slurm.env)")
    String env;

    @Option(names = "--nodes", defaultValue = "200", description = "GET nodes calls")
    int nodes;

    @Option(names = "--jobs", defaultValue = "50", description = "placeholder jobs")
    int jobs;

    @Option(names = "--drains", defaultValue = "50", description = "drain+undrain round trips")
    int drains;

    @Option(names = "--node", defaultValue = "n1", description = "node to drain")
    String node;

    @Override
    public Integer call() throws Exception {
      List<String> args = new ArrayList<>();
      if (env != null) {
        args.addAll(List.of("--env", env));
      }
      args.addAll(
          List.of(
              "--nodes", "" + nodes, "--jobs", "" + jobs, "--drains", "" + drains, "--node", node));
      SlurmClientBench.main(args.toArray(String[]::new));
      return 0;
    }
  }
}
