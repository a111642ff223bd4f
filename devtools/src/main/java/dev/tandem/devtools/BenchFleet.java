package dev.tandem.devtools;

import dev.tandem.bench.FleetBench;
import dev.tandem.bench.FleetFigures;
import dev.tandem.bench.Machine;
import dev.tandem.bench.SimKubelet;
import dev.tandem.cli.CliException;
import dev.tandem.cli.Durations;
import dev.tandem.dev.FleetStack;
import dev.tandem.devstack.LocalScript;
import dev.tandem.workflows.nodeset.NodeSetSpecValidator;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tandem bench fleet}: provision, rolling update, cordon and rest of one NodeSet of {@code
 * --nodes} nodes on a simulated fleet (fake slurmrestd v0.0.44, simulated kubelets, the Kubernetes
 * control plane, the Temporal server, one worker JVM). See {@link FleetBench}. The stack's state
 * directory is deleted after a run that produced its figures and kept after one that failed.
 */
@Command(
    name = "fleet",
    description =
        "provision, rolling update (maxUnavailable 10%%), 10%% cordon and at-rest cost of --nodes"
            + " nodes on a simulated fleet; prints a table with the targets.",
    mixinStandardHelpOptions = true)
final class BenchFleet implements Callable<Integer> {
  @Option(names = "--nodes", defaultValue = "1000", description = "nodes (default 1000)")
  int nodes;

  @Option(
      names = "--per-nodeset",
      defaultValue = "1000",
      description =
          "nodes per NodeSet (default 1000, at most 2000): more nodes are several NodeSets")
  int perNodeSet;

  @Option(names = "--rest", defaultValue = "5m", description = "at-rest window (default 5m)")
  String rest;

  @Option(
      names = "--settle",
      defaultValue = "0s",
      description =
          "wait this long after the last change before the at-rest window, so that it measures a"
              + " quiet fleet rather than the nodes' safety re-reads after the cordon (default 0s)")
  String settle;

  @Option(
      names = "--register-delay",
      defaultValue = "1s",
      description = "pod Running -> its slurmd registers with Slurm (default 1s)")
  String registerDelay;

  @Option(
      names = "--phase-limit",
      defaultValue = "60m",
      description = "give up on a phase after this long (default 60m)")
  String phaseLimit;

  @Option(
      names = "--worker-env",
      description = "extra worker environment, KEY=VALUE (repeatable), e.g. TANDEM_NODE_POLL=1s")
  Map<String, String> workerEnv = new HashMap<>();

  @Option(
      names = "--no-rollout",
      description = "leave the rolling update out (it takes longest at thousands of nodes)")
  boolean noRollout;

  @Option(
      names = "--keep",
      description =
          "keep the stack's state directory (the worker's log, the plane's logs and audit log)"
              + " after a run that passed; one that failed is always kept")
  boolean keep;

  @Option(names = "--append", description = "append the table (machine, date) to this file")
  Path append;

  @Option(
      names = "--histories",
      description =
          "after the rollout, write the NodeSets' and two nodes' workflow histories into this"
              + " directory (JSON, as the Temporal CLI exports them)")
  Path histories;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    if (nodes < 1 || nodes > 20_000) {
      throw new CliException("--nodes must be between 1 and 20000, got " + nodes);
    }
    if (perNodeSet < 1 || perNodeSet > NodeSetSpecValidator.MAX_NODES) {
      throw new CliException(
          "--per-nodeset must be between 1 and "
              + NodeSetSpecValidator.MAX_NODES
              + " (the most nodes one NodeSet may have), got "
              + perNodeSet);
    }
    FleetFigures f =
        run(
            nodes,
            perNodeSet,
            Durations.parse(rest),
            Durations.parse(settle),
            Durations.parse(registerDelay),
            Durations.parse(phaseLimit),
            workerEnv,
            !noRollout,
            histories,
            keep,
            out);
    String section = section(f);
    out.print(section);
    out.flush();
    if (append != null) {
      Files.writeString(
          append, "\n" + section, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      out.println("appended to " + append);
    }
    return 0;
  }

  /**
   * Starts the stack, runs the bench, stops everything; {@code histories} (or null) receives the
   * workflow histories after the rollout. The state directory goes unless {@code keep} or the run
   * failed.
   */
  static FleetFigures run(
      int nodes,
      int perNodeSet,
      Duration rest,
      Duration settle,
      Duration registerDelay,
      Duration phaseLimit,
      Map<String, String> workerEnv,
      boolean rollout,
      Path histories,
      boolean keep,
      PrintWriter out)
      throws Exception {
    Path dir = Files.createTempDirectory("tandem-bench-fleet-");
    out.printf("starting a simulated fleet stack in %s%n", dir);
    out.flush();
    boolean passed = false;
    try (FleetStack stack = FleetStack.start(dir, registerDelay, workerEnv, out);
        SimKubelet kubelet = new SimKubelet(stack.kubernetes(), stack.fake(), nodes)) {
      kubelet.start();
      WorkflowClient temporal =
          WorkflowClient.newInstance(
              WorkflowServiceStubs.newServiceStubs(
                  WorkflowServiceStubsOptions.newBuilder()
                      .setTarget(stack.temporalAddress())
                      .build()));
      try {
        FleetFigures figures =
            new FleetBench(stack, kubelet, temporal, nodes, perNodeSet, phaseLimit, out)
                .histories(histories)
                .settle(settle)
                .run(rest, rollout);
        passed = true;
        return figures;
      } finally {
        temporal.getWorkflowServiceStubs().shutdownNow();
      }
    } finally {
      // After the stack stopped (resources close first). Hundreds of MB a run: etcd, Temporal's
      // database, the audit log.
      if (passed && !keep) {
        try {
          LocalScript.deleteTree(dir);
        } catch (java.io.IOException e) {
          out.printf("could not delete the stack's state in %s: %s%n", dir, e);
        }
      } else {
        out.printf(
            "the stack's state is kept in %s (the worker's log, the plane's logs and audit log)%n",
            dir);
        out.flush();
      }
    }
  }

  private String section(FleetFigures f) {
    return "### "
        + f.nodes
        + " nodes, "
        + Instant.now().truncatedTo(ChronoUnit.SECONDS)
        + "\n\nMachine: "
        + Machine.describe()
        + ". Command: `tandem bench fleet --nodes "
        + nodes
        + (perNodeSet == 1000 ? "" : " --per-nodeset " + perNodeSet)
        + " --rest "
        + rest
        + (Durations.parse(settle).isZero() ? "" : " --settle " + settle)
        + " --register-delay "
        + registerDelay
        + (noRollout ? " --no-rollout" : "")
        + (workerEnv.isEmpty() ? "" : " " + workerEnvArgs())
        + "`.\n\n"
        + f.table();
  }

  private String workerEnvArgs() {
    StringBuilder b = new StringBuilder();
    workerEnv.forEach((k, v) -> b.append(" --worker-env ").append(k).append('=').append(v));
    return b.toString().trim();
  }
}
