package dev.tandem.devtools;

import dev.tandem.bench.Offer;
import dev.tandem.bench.RefusedTasks;
import dev.tandem.bench.SchedulingBench;
import dev.tandem.cli.Durations;
import dev.tandem.dev.DevStack;
import dev.tandem.dev.Manifests;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmClients;
import dev.tandem.workflows.Names;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code tandem bench scheduling}: starts its own local stack on free ports with a NodeSet on the
 * local Slurm's pool {@code e2e} (8 nodes of 4 CPUs, all in partition {@code tandem}), waits until
 * every slurmd pod is ready, runs {@link SchedulingBench}, then deletes the NodeSet and stops the
 * stack.
 */
@Command(
    name = "scheduling",
    description =
        "pods through Slurm (create -> bind, pods/s) against raw slurmrestd jobs, and Slurm"
            + " preemption -> pod eviction, on a local stack it starts and stops.",
    mixinStandardHelpOptions = true)
final class BenchScheduling implements Callable<Integer> {
  @Option(names = "--pods", defaultValue = "200", description = "pods, and raw jobs (default 200)")
  int pods;

  @Option(
      names = "--preemptions",
      defaultValue = "20",
      description = "preemption trials (default 20)")
  int preemptions;

  @Option(
      names = "--warmup",
      defaultValue = "100",
      description =
          "pods, and raw jobs, run first and not measured, so that both sides are measured warm"
              + " (JIT-compiled), as a long-running worker is (default ${DEFAULT-VALUE}; 0: none)")
  int warmup;

  @Option(
      names = "--slurm-poll",
      defaultValue = "2s",
      description = "the Slurm watcher's poll interval (default ${DEFAULT-VALUE}, the product's)")
  String slurmPoll;

  @Option(
      names = "--nodeset",
      defaultValue = "e2e",
      description = "NodeSet to create; its name must be a Slurm node pool (default e2e)")
  String nodeSet;

  @Option(names = "--replicas", defaultValue = "8", description = "its slurmd pods (default 8)")
  int replicas;

  @Option(
      names = "--partition",
      defaultValue = "tandem",
      description = "Slurm partition of the pods and raw jobs: NodeSet nodes only (default tandem)")
  String partition;

  @Option(
      names = "--histories",
      description =
          "write the Temporal histories of five measured pods' scheduling workflows into this"
              + " directory (JSON, as the Temporal CLI exports them), to see what a pod costs, and"
              + " into DIR/refused those of every pod whose workflow had a task refused or timed"
              + " out")
  Path histories;

  @Option(
      names = "--floor",
      negatable = true,
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "also churn the pods through the bench's floor scheduler (the calls every pod needs and"
              + " nothing else), which shows whether the targets are within reach on this machine"
              + " (default ${DEFAULT-VALUE}; --no-floor: skip it)")
  boolean floor;

  @Option(
      names = "--rate",
      defaultValue = "0",
      description =
          "offer the measured pods, raw jobs and floor pods at this many a second instead of all"
              + " at once (from 0.5; default 0: all at once), to time each side's latency at a"
              + " load the machine carries; such a run does not measure throughput, so it never"
              + " passes that target")
  double rate;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    Duration poll = Durations.parse(slurmPoll);
    Offer offer;
    try {
      offer = Offer.of(rate, pods);
    } catch (IllegalArgumentException e) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    Path dir = Files.createTempDirectory("tandem-bench-");
    out.printf("starting a local stack (Slurm poll interval %s)%n", slurmPoll);
    // The stack's stand-in servers run in this JVM: say how it compiles (./tandem's note).
    out.printf(
        "  this JVM (local API, kubelet, bench): %s%n",
        java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .anyMatch(a -> a.startsWith("-XX:TieredStopAtLevel=1"))
            ? "C1 only (-XX:TieredStopAtLevel=1)"
            : "C1 and C2 (the JVM's default)");
    try (DevStack stack =
        DevStack.start(
            new DevStack.Options(
                dir,
                0,
                0,
                0,
                replicas,
                Map.of("TANDEM_SLURM_POLL_INTERVAL", slurmPoll, "TANDEM_NODE_POLL", "1s")),
            out)) {
      stack.apply(
          new ByteArrayInputStream(
              Manifests.nodeSet(nodeSet, replicas, "slurmd:bench", "")
                  .getBytes(StandardCharsets.UTF_8)));
      WorkflowClient temporal =
          WorkflowClient.newInstance(
              WorkflowServiceStubs.newServiceStubs(
                  WorkflowServiceStubsOptions.newBuilder()
                      .setTarget(stack.temporalAddress())
                      .build()));
      try {
        for (int i = 0; i < replicas; i++) {
          BenchCommand.Watchers.awaitReady(temporal, nodeSet + "-" + i, Duration.ofMinutes(2));
        }
        return measure(stack, temporal, poll, offer, out);
      } finally {
        temporal.getWorkflowServiceStubs().shutdownNow();
      }
    }
  }

  private int measure(
      DevStack stack, WorkflowClient temporal, Duration poll, Offer offer, PrintWriter out)
      throws Exception {
    try (SlurmClient slurm = SlurmClients.create(SlurmClientConfig.fromEnv(stack.slurm().env()))) {
      SchedulingBench bench =
          new SchedulingBench(
              stack.kubernetes(),
              slurm,
              floor ? temporal : null,
              "default",
              partition,
              stack.slurm().env().get("SLURM_CONF"),
              URI.create("http://127.0.0.1:" + stack.metricsPort() + "/metrics"),
              poll,
              stack.worker().pid(),
              offer,
              out);
      SchedulingBench.Result r = bench.run(warmup, pods, preemptions);
      writeHistories(temporal, bench.samplePods(), out);
      new RefusedTasks(temporal)
          .report(bench.partPods(), histories == null ? null : histories.resolve("refused"), out);
      return r.allPass(poll) ? 0 : 1;
    } finally {
      NodeSetResources.generic(stack.kubernetes())
          .inNamespace("default")
          .withName(nodeSet)
          .delete();
      for (int i = 0; i < replicas; i++) {
        BenchCommand.Watchers.awaitGone(stack, nodeSet + "-" + i, Duration.ofMinutes(1));
      }
    }
  }

  /** {@code --histories}: the sample pods' scheduling workflow histories, one JSON file each. */
  private void writeHistories(WorkflowClient temporal, Map<String, String> sample, PrintWriter out)
      throws java.io.IOException {
    if (histories == null) {
      return;
    }
    Files.createDirectories(histories);
    for (Map.Entry<String, String> e : sample.entrySet()) {
      String[] nsName = e.getKey().split("/", 2);
      String id = Names.scheduleWorkflowId(nsName[0], nsName[1], e.getValue());
      Path file = histories.resolve(nsName[1] + ".json");
      Files.writeString(file, temporal.fetchHistory(id).toJson(true));
      out.printf("history of %s written to %s%n", id, file);
    }
  }
}
