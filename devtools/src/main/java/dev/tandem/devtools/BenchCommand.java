package dev.tandem.devtools;

import dev.tandem.bench.WatchersBench;
import dev.tandem.cli.CliException;
import dev.tandem.cli.Durations;
import dev.tandem.dev.DevStack;
import dev.tandem.dev.Manifests;
import dev.tandem.k8s.KubeClients;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmClients;
import dev.tandem.slurm.SlurmEnvFile;
import dev.tandem.slurm.bench.SlurmClientBench;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tandem bench ...}: benchmarks that print figures against the real local stack. */
@Command(
    name = "bench",
    description = "Benchmarks against the local stack; they print p50/p99 figures.",
    mixinStandardHelpOptions = true,
    subcommands = {
      BenchCommand.Slurm.class,
      BenchCommand.Watchers.class,
      BenchScheduling.class,
      BenchSlurmPoll.class,
      BenchFleet.class,
      BenchAutoscale.class
    })
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

  /**
   * The watchers end to end: starts its own local stack on free ports (real Slurm, API, kubelet,
   * Temporal server, worker with the given poll interval), applies a one-node NodeSet and runs
   * {@link WatchersBench}.
   */
  @Command(
      name = "watchers",
      description =
          "cordon -> Slurm DRAIN and Slurm drain -> pod annotation latency, p50/p99, on a local"
              + " stack it starts and stops.",
      mixinStandardHelpOptions = true)
  static final class Watchers implements Callable<Integer> {
    @Option(names = "--trials", defaultValue = "50", description = "trials of each (default 50)")
    int trials;

    @Option(
        names = "--slurm-poll",
        defaultValue = "2s",
        description = "the Slurm watcher's poll interval (default ${DEFAULT-VALUE}, the product's)")
    String slurmPoll;

    @Option(
        names = "--nodeset",
        defaultValue = "wt",
        description = "NodeSet to create; its pods must match a Slurm node pool (default wt)")
    String nodeSet;

    @Option(
        names = "--kubeconfig",
        description =
            "measure a stack that already runs (e.g. `tandem dev`'s kubeconfig) instead of"
                + " starting one; needs --pod, and --slurm-poll set to that stack's interval")
    Path kubeconfig;

    @Option(names = "--pod", description = "with --kubeconfig: a ready slurmd pod to measure")
    String pod;

    @Option(names = "--namespace", defaultValue = "default", description = "with --kubeconfig")
    String namespace;

    @Option(names = "--slurm-env", description = "with --kubeconfig: Slurm env file")
    Path slurmEnv;

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      Duration poll = Durations.parse(slurmPoll);
      if (kubeconfig != null) {
        return attached(out, poll);
      }
      Path dir = Files.createTempDirectory("tandem-bench-");
      out.printf("starting a local stack (Slurm poll interval %s)%n", slurmPoll);
      try (DevStack stack =
          DevStack.start(
              new DevStack.Options(
                  dir,
                  0,
                  0,
                  0,
                  1,
                  Map.of("TANDEM_SLURM_POLL_INTERVAL", slurmPoll, "TANDEM_NODE_POLL", "1s")),
              out)) {
        stack.apply(
            new ByteArrayInputStream(
                Manifests.nodeSet(nodeSet, 1, "slurmd:bench", "")
                    .getBytes(StandardCharsets.UTF_8)));
        String pod = nodeSet + "-0";
        WorkflowClient temporal =
            WorkflowClient.newInstance(
                WorkflowServiceStubs.newServiceStubs(
                    WorkflowServiceStubsOptions.newBuilder()
                        .setTarget(stack.temporalAddress())
                        .build()));
        try {
          awaitReady(temporal, pod, Duration.ofMinutes(2));
        } finally {
          temporal.getWorkflowServiceStubs().shutdownNow();
        }
        try (SlurmClient slurm =
            SlurmClients.create(SlurmClientConfig.fromEnv(stack.slurm().env()))) {
          WatchersBench.Result r =
              new WatchersBench(stack.kubernetes(), slurm, "default", pod, poll, out).run(trials);
          printTargets(out, poll);
          return r.failed() == 0 ? 0 : 1;
        } finally {
          NodeSetResources.generic(stack.kubernetes())
              .inNamespace("default")
              .withName(nodeSet)
              .delete();
          awaitGone(stack, pod, Duration.ofMinutes(1));
        }
      }
    }

    private int attached(PrintWriter out, Duration poll) throws Exception {
      if (pod == null) {
        throw new CliException("--kubeconfig needs --pod (a ready slurmd pod)");
      }
      Path envFile = slurmEnv != null ? slurmEnv : SlurmEnvFile.defaultPath(System.getenv());
      io.fabric8.kubernetes.client.Config kc =
          io.fabric8.kubernetes.client.Config.fromKubeconfig(
              null, Files.readString(kubeconfig), kubeconfig.toString());
      try (KubernetesClient k8s = KubeClients.build(kc);
          SlurmClient slurm =
              SlurmClients.create(SlurmClientConfig.fromEnv(SlurmEnvFile.read(envFile)))) {
        WatchersBench.Result r =
            new WatchersBench(k8s, slurm, namespace, pod, poll, out).run(trials);
        printTargets(out, poll);
        return r.failed() == 0 ? 0 : 1;
      }
    }

    private static void printTargets(PrintWriter out, Duration poll) {
      out.printf(
          "targets: cordon -> DRAIN p99 <= 1000 ms; Slurm -> pod p99 <= %d ms (poll + 500)%n",
          poll.toMillis() + 500);
    }

    static void awaitReady(WorkflowClient temporal, String pod, Duration limit)
        throws InterruptedException {
      long end = System.nanoTime() + limit.toNanos();
      while (System.nanoTime() < end) {
        try {
          NodeStatus s =
              temporal
                  .newWorkflowStub(
                      NodeLifecycleWorkflow.class, Names.nodeWorkflowId("default", pod))
                  .status();
          if (s.phase() == NodePhase.READY) {
            return;
          }
        } catch (RuntimeException e) {
          // not started yet
        }
        Thread.sleep(250);
      }
      throw new CliException(pod + " not ready within " + limit.toSeconds() + "s");
    }

    /** Lets Tandem drain and delete the bench node so the Slurm pool is free again. */
    static void awaitGone(DevStack stack, String pod, Duration limit) throws InterruptedException {
      long end = System.nanoTime() + limit.toNanos();
      while (System.nanoTime() < end
          && stack.kubernetes().pods().inNamespace("default").withName(pod).get() != null) {
        Thread.sleep(250);
      }
    }
  }
}
