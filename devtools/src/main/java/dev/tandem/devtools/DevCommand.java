package dev.tandem.devtools;

import dev.tandem.cli.CliException;
import dev.tandem.cli.Durations;
import dev.tandem.cli.TandemCli;
import dev.tandem.dev.DevStack;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeSummary;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tandem dev}: the embedded default stack on this machine until Ctrl-C (see {@link
 * DevStack}), with a sample NodeSet applied and its progress shown.
 */
@Command(
    name = "dev",
    description =
        "Run Tandem locally: real Slurm, the Temporal server and its Web UI, a real Kubernetes control plane, a"
            + " kubelet running slurmd pods, the worker. Ctrl-C stops it all (jobs on its nodes are cancelled).",
    mixinStandardHelpOptions = true)
final class DevCommand implements Callable<Integer> {
  static final String DEFAULT_STATE_DIR = TandemCli.DEV_STATE_DIR;

  @Spec CommandSpec spec;

  @Option(
      names = "--state-dir",
      defaultValue = DEFAULT_STATE_DIR,
      description =
          "the Kubernetes plane (kube/, its admin.kubeconfig), logs, worker.pid and, unless TANDEM_SLURM_DIR is"
              + " set, this stack's own Slurm in <state-dir>/slurm (default ${DEFAULT-VALUE})")
  Path stateDir;

  @Option(
      names = "--temporal-port",
      defaultValue = "7233",
      description = "default ${DEFAULT-VALUE}")
  int temporalPort;

  @Option(
      names = "--api-port",
      defaultValue = "16443",
      description =
          "the API server's; etcd, the controller manager and the scheduler take the four"
              + " after it (default ${DEFAULT-VALUE})")
  int apiPort;

  @Option(names = "--metrics-port", defaultValue = "9090", description = "default ${DEFAULT-VALUE}")
  int metricsPort;

  @Option(names = "--nodes", defaultValue = "3", description = "local Kubernetes nodes")
  int nodes;

  @Option(
      names = "--manifest",
      description = "NodeSet manifest to apply (default: the bundled examples/nodeset-gpu-a.yaml)")
  Path manifest;

  @Option(names = "--no-sample", description = "apply no NodeSet")
  boolean noSample;

  @Option(
      names = "--exit-when-ready",
      description =
          "stop everything once the sample is ready (a smoke test; exit 1 if it is not"
              + " ready within --ready-timeout)")
  boolean exitWhenReady;

  @Option(names = "--ready-timeout", defaultValue = "2m", description = "default ${DEFAULT-VALUE}")
  String readyTimeout;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    long t0 = System.nanoTime();
    out.println("tandem dev: starting the local stack");
    DevStack.Options defaults = DevStack.Options.defaults(stateDir);
    DevStack stack =
        DevStack.start(
            new DevStack.Options(
                stateDir,
                temporalPort,
                apiPort,
                metricsPort,
                nodes,
                defaults.workerEnv(),
                defaults.slurmEnv(),
                true),
            out);
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook =
        new Thread(
            () -> {
              out.println("\ntandem dev: stopping");
              out.flush();
              stack.close();
              stopped.countDown();
            },
            "tandem-dev-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    WorkflowClient client =
        WorkflowClient.newInstance(
            WorkflowServiceStubs.newServiceStubs(
                WorkflowServiceStubsOptions.newBuilder()
                    .setTarget(stack.temporalAddress())
                    .build()),
            WorkflowClientOptions.newBuilder().setNamespace("default").build());
    String sample = null;
    if (!noSample) {
      GenericKubernetesResource r;
      try (InputStream in = manifest()) {
        r = stack.apply(in);
      }
      sample = r.getMetadata().getName();
      out.printf("  applied NodeSet %s%n", sample);
    }
    boolean ready = sample == null || watch(out, client, sample, Durations.parse(readyTimeout));
    out.printf("ready after %ds%n%n", (System.nanoTime() - t0) / 1_000_000_000L);
    printNextSteps(out, stack, sample);
    if (exitWhenReady) {
      Runtime.getRuntime().removeShutdownHook(hook);
      client.getWorkflowServiceStubs().shutdownNow();
      stack.close();
      return ready ? 0 : 1;
    }
    stopped.await();
    return 0;
  }

  private InputStream manifest() throws java.io.IOException {
    if (manifest != null) {
      return Files.newInputStream(manifest);
    }
    Path repo = Path.of("examples", "nodeset-gpu-a.yaml");
    if (Files.isRegularFile(repo)) {
      return Files.newInputStream(repo);
    }
    InputStream in = DevCommand.class.getResourceAsStream("/examples/nodeset-gpu-a.yaml");
    if (in == null) {
      throw new CliException("no sample manifest found; pass --manifest FILE or --no-sample");
    }
    return in;
  }

  /** Prints each node's phase as it changes until all are ready; false on timeout. */
  private static boolean watch(
      PrintWriter out, WorkflowClient client, String nodeSet, Duration timeout)
      throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    Map<String, String> shown = new LinkedHashMap<>();
    while (System.nanoTime() < end) {
      NodeSetSnapshot s;
      try {
        s =
            client
                .newWorkflowStub(NodeSetWorkflow.class, Names.nodeSetWorkflowId("default", nodeSet))
                .status();
      } catch (RuntimeException e) {
        Thread.sleep(300); // the watcher has not started the workflow yet
        continue;
      }
      for (NodeSummary n : s.nodes()) {
        String line = n.phase().label() + " (slurm " + n.slurmState() + ")";
        if (!line.equals(shown.put(n.pod(), line))) {
          out.printf("  %-12s %s%n", n.pod(), line);
          out.flush();
        }
      }
      boolean all =
          !s.nodes().isEmpty()
              && s.nodes().size() == s.desiredReplicas()
              && s.nodes().stream().allMatch(n -> n.phase() == NodePhase.READY);
      if (all) {
        return true;
      }
      Thread.sleep(300);
    }
    out.printf("  not all nodes of %s are ready after %ds%n", nodeSet, timeout.toSeconds());
    return false;
  }

  /** {@code name} when {@code bin} is what PATH finds by it, else the binary's path. */
  private static String command(String name, Callable<Path> bin) {
    try {
      Path b = bin.call();
      String path = System.getenv().getOrDefault("PATH", "");
      for (String d : path.split(":")) {
        if (!d.isEmpty() && b.equals(Path.of(d, name))) {
          return name;
        }
      }
      return b.toString();
    } catch (Exception e) {
      return name;
    }
  }

  private void printNextSteps(PrintWriter out, DevStack stack, String sample) {
    String kubectl =
        command("kubectl", () -> stack.kube().kubectl()) + " --kubeconfig " + stack.kubeconfig();
    String set = sample == null ? "<nodeset>" : sample;
    String ui = stack.temporal().uiAddress();
    out.printf("Temporal Web UI: %s%n", ui);
    if (sample != null) {
      String query = Names.SA_NODESET + "=\"default/" + set + "\"";
      out.printf(
          "  %s's workflows: %s/namespaces/default/workflows?query=%s%n",
          set, ui, URLEncoder.encode(query, StandardCharsets.UTF_8).replace("+", "%20"));
    }
    out.println("Try:");
    out.printf("  ./tandem status %s%n", set);
    out.printf("  ./tandem drain %s-0 --reason \"trying tandem\" --wait%n", set);
    out.printf("  ./tandem undrain %s-0%n", set);
    out.printf("  ./tandem history %s-0%n", set);
    out.printf("  %s get nodesets,pods,nodes%n", kubectl);
    out.printf("  %s scale nodeset %s --replicas 4%n", kubectl, set);
    out.printf("  %s cordon local-1     # drains the Slurm nodes on it%n", kubectl);
    out.printf("  %s logs %s-0       # that slurmd pod's slurmd%n", kubectl, set);
    out.printf("  SLURM_CONF=%s sinfo -R%n", stack.slurm().env().get("SLURM_CONF"));
    String temporal = command("temporal", () -> stack.temporal().binary());
    out.printf(
        "  %s workflow query --address %s --workflow-id node/default/%s-0 --type status%n",
        temporal, stack.temporalAddress(), set);
    out.printf(
        "  %s workflow list --address %s --query '%s=\"default/%s\"'%n",
        temporal, stack.temporalAddress(), Names.SA_NODESET, set);
    out.printf("  curl -s 127.0.0.1:%d/metrics | grep ^tandem_%n", stack.metricsPort());
    out.println("Pods through Slurm (docs/scheduling.md):");
    out.printf("  %s apply -f examples/pod-through-slurm.yaml%n", kubectl);
    out.printf("  %s get pods -w       # Pending until Slurm runs it%n", kubectl);
    out.println("  ./tandem pods");
    out.println("  ./tandem history pod/default/trainer-0");
    out.printf(
        "The worker runs as its own process (pid %d, log %s). Kill it and watch it come back:%n",
        stack.worker().pid(), stack.worker().logFile());
    out.printf("  kill -9 $(cat %s)%n", stack.worker().pidFile());
    out.println(
        "Ctrl-C stops everything: jobs still running on the stack's nodes are cancelled first.");
    out.flush();
  }
}
