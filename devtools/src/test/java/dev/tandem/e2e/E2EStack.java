package dev.tandem.e2e;

import dev.tandem.bench.SlurmCommand;
import dev.tandem.dev.DevStack;
import dev.tandem.dev.Manifests;
import dev.tandem.devstack.kube.OnConflict;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmClients;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.local.LocalSlurmScript;
import dev.tandem.slurm.testing.Await;
import dev.tandem.watchers.K8sNodeWatcher;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The whole stack for end-to-end tests: real Slurm, a real Kubernetes control plane of its own and
 * the local kubelet (real slurmd processes), Temporal's test server and the Tandem worker as a
 * separate JVM, on ephemeral ports. Helpers act like a user (kubectl-style changes, sbatch,
 * scancel, scontrol, tandem queries) and like a crash: kill the worker with SIGKILL at a moment
 * chosen from its progress ({@link #awaitActivitiesStarted}), restart it, read its metrics.
 */
public final class E2EStack implements AutoCloseable {
  /** Fast timings so a test takes seconds: what a user would tune down in a lab. */
  static final Map<String, String> FAST =
      Map.of(
          "TANDEM_NODE_POLL", "1s",
          "TANDEM_NODE_RESYNC", "10s",
          "TANDEM_NODE_REST_MAX", "80s",
          "TANDEM_SLURM_POLL_INTERVAL", "500ms",
          "TANDEM_SLURM_FULL_RESYNC", "30s",
          "TANDEM_INFORMER_RESYNC", "1m");

  final DevStack stack;
  final WorkflowClient temporal;
  final SlurmClient slurm;
  final KubernetesClient k8s;
  final Path dir;

  private E2EStack(DevStack stack, WorkflowClient temporal, SlurmClient slurm, Path dir) {
    this.stack = stack;
    this.temporal = temporal;
    this.slurm = slurm;
    this.k8s = stack.kubernetes();
    this.dir = dir;
  }

  static E2EStack start(Map<String, String> extraEnv) throws IOException {
    return start(extraEnv, (stack, env) -> env);
  }

  /**
   * As {@link #start(Map)}; {@code workerEnv} may change the worker's complete environment before
   * it starts (e.g. point SLURM_REST_URL or TEMPORAL_ADDRESS at a fault proxy). The worker runs
   * under the chart's ServiceAccount and RBAC ({@link ChartIdentity}), not as the cluster admin.
   */
  static E2EStack start(
      Map<String, String> extraEnv,
      BiFunction<DevStack, Map<String, String>, Map<String, String>> workerEnv)
      throws IOException {
    Path dir = Files.createTempDirectory("tandem-e2e-");
    Map<String, String> env = new java.util.HashMap<>(FAST);
    env.putAll(extraEnv);
    DevStack s =
        DevStack.start(
            new DevStack.Options(dir, 0, 0, 0, 3, env),
            new PrintWriter(System.out, true),
            (stack, w) -> workerEnv.apply(stack, asChartServiceAccount(stack, w)));
    WorkflowServiceStubs stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(s.temporalAddress()).build());
    WorkflowClient client =
        WorkflowClient.newInstance(
            stubs, WorkflowClientOptions.newBuilder().setNamespace("default").build());
    SlurmClient slurm = SlurmClients.create(SlurmClientConfig.fromEnv(s.slurm().env()));
    return new E2EStack(s, client, slurm, dir);
  }

  private static Map<String, String> asChartServiceAccount(DevStack stack, Map<String, String> w) {
    Map<String, String> m = new java.util.HashMap<>(w);
    Path file = stack.kubeconfig().resolveSibling("worker.kubeconfig");
    try {
      m.put(
          "KUBECONFIG",
          ChartIdentity.kubeconfig(stack.kubernetes(), stack.kube().url(), file).toString());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return m;
  }

  /**
   * A stack with NodeSet {@code name} of {@code replicas} applied and every node ready; {@link
   * #close()} then deletes the NodeSet first, so its Slurm nodes are free for the next suite.
   */
  static E2EStack startWithNodeSet(String name, int replicas) throws IOException {
    E2EStack e = start(Map.of());
    e.ownNodeSet(name, replicas);
    return e;
  }

  /**
   * Applies NodeSet {@code name} of {@code replicas}, waits until every node is ready, and deletes
   * it first in {@link #close()}; closes this stack if that fails.
   */
  void ownNodeSet(String name, int replicas) {
    try {
      apply(Manifests.nodeSet(name, replicas, "slurmd:v1", ""));
      for (int i = 0; i < replicas; i++) {
        awaitPhase(name + "-" + i, NodePhase.READY);
      }
    } catch (RuntimeException | Error x) {
      close();
      throw x;
    }
    ownedNodeSet = name;
  }

  private String ownedNodeSet;

  /** Waits (up to a minute) until the node workflow of {@code pod} is in {@code phase}. */
  void awaitPhase(String pod, NodePhase phase) {
    Await.until(
        pod + " " + phase.label(),
        Duration.ofSeconds(60),
        Duration.ofMillis(100),
        () -> nodeStatus(pod).phase(),
        p -> p == phase);
  }

  // ---- Kubernetes, as kubectl would ----

  void apply(String yaml) {
    stack.apply(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * What a node health agent does: sets condition {@code type} True with {@code reason} and {@code
   * message} in the Node's status, or removes it when {@code reason} is null.
   */
  void setNodeCondition(String node, String type, String reason, String message) {
    OnConflict.retry(
        () ->
            k8s.nodes()
                .withName(node)
                .editStatus(
                    n -> {
                      List<NodeCondition> keep = new ArrayList<>();
                      for (NodeCondition c : n.getStatus().getConditions()) {
                        if (!type.equals(c.getType())) {
                          keep.add(c);
                        }
                      }
                      if (reason != null) {
                        keep.add(
                            new NodeConditionBuilder()
                                .withType(type)
                                .withStatus("True")
                                .withReason(reason)
                                .withMessage(message)
                                .build());
                      }
                      return new NodeBuilder(n)
                          .editStatus()
                          .withConditions(keep)
                          .endStatus()
                          .build();
                    }));
  }

  void patchSpec(String name, String specJson) {
    NodeSetResources.generic(k8s)
        .inNamespace("default")
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":" + specJson + "}");
  }

  GenericKubernetesResource nodeSet(String name) {
    return NodeSetResources.generic(k8s).inNamespace("default").withName(name).get();
  }

  Optional<Pod> pod(String name) {
    return Optional.ofNullable(k8s.pods().inNamespace("default").withName(name).get());
  }

  /** Deletes the NodeSet and waits until Tandem released it and its pods are gone. */
  void deleteNodeSet(String name, Duration limit) {
    NodeSetResources.generic(k8s).inNamespace("default").withName(name).delete();
    Await.until(
        "NodeSet " + name + " released and its pods gone",
        limit,
        Duration.ofMillis(250),
        () ->
            nodeSet(name) == null
                && k8s.pods()
                    .inNamespace("default")
                    .withLabel("tandem.dev/nodeset", name)
                    .list()
                    .getItems()
                    .isEmpty(),
        b -> b);
  }

  /** What {@code kubectl cordon} sends (a strategic merge patch). */
  void cordon(String node) {
    k8s.nodes()
        .withName(node)
        .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), "{\"spec\":{\"unschedulable\":true}}");
  }

  /** What {@code kubectl uncordon} sends, plus dropping Tandem's cordon-reason annotation. */
  void uncordon(String node) {
    k8s.nodes()
        .withName(node)
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"metadata\":{\"annotations\":{\""
                + K8sNodeWatcher.CORDON_REASON
                + "\":null}},\"spec\":{\"unschedulable\":null}}");
  }

  /** {@code kubectl annotate node NODE tandem.dev/cordon-reason=REASON}. */
  void annotateCordonReason(String node, String reason) {
    k8s.nodes()
        .withName(node)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\""
                + K8sNodeWatcher.CORDON_REASON
                + "\":\""
                + reason
                + "\"}}}");
  }

  /** The plane's kubectl against the stack's kubeconfig; returns its output. */
  String kubectl(String... args) throws IOException, InterruptedException {
    List<String> cmd =
        new ArrayList<>(
            List.of(stack.kube().kubectl().toString(), "--kubeconfig", kubeconfig().toString()));
    cmd.addAll(List.of(args));
    return run(cmd);
  }

  Path kubeconfig() {
    return stack.kubeconfig();
  }

  // ---- the worker process, as a crash would treat it ----

  /** On (default): a dead worker is restarted after a back-off of 1 s and more. */
  void superviseWorker(boolean on) {
    stack.worker().setSupervised(on);
  }

  /** SIGKILL to the worker JVM; returns its pid. */
  long killWorker() throws InterruptedException {
    long pid = stack.worker().kill();
    if (pid < 0) {
      throw new IllegalStateException("no worker was running");
    }
    return pid;
  }

  /** Starts the worker (if none runs) and waits until its /readyz answers; returns its pid. */
  long startWorker() throws IOException, InterruptedException {
    long pid = stack.worker().start();
    awaitWorkerReady();
    return pid;
  }

  void awaitWorkerReady() throws InterruptedException {
    stack.worker().awaitReady(Duration.ofMinutes(2));
  }

  long workerPid() {
    return stack.worker().pid();
  }

  /** The current worker's /metrics, parsed. */
  Metrics metrics() throws IOException, InterruptedException {
    return Metrics.scrape(stack.worker().metricsUrl());
  }

  /**
   * Waits until the running worker has started at least {@code n} activity attempts (its counter
   * starts at 0 with each worker process) and returns the count: the way to pick a moment in a
   * scenario by its progress rather than by time.
   */
  long awaitActivitiesStarted(long n, Duration limit) {
    return Await.until(
        n + " activities started on worker pid " + workerPid(),
        limit,
        Duration.ofMillis(50),
        () -> {
          try {
            return (long) metrics().sum(Metrics.ACTIVITIES_STARTED);
          } catch (IOException e) {
            return -1L; // restarting; asked again
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          }
        },
        c -> c >= n);
  }

  // ---- Temporal, as tandem status would ----

  NodeSetSnapshot nodeSetStatus(String name) {
    return temporal
        .newWorkflowStub(NodeSetWorkflow.class, Names.nodeSetWorkflowId("default", name))
        .status();
  }

  NodeStatus nodeStatus(String pod) {
    return temporal
        .newWorkflowStub(NodeLifecycleWorkflow.class, Names.nodeWorkflowId("default", pod))
        .status();
  }

  // ---- Slurm, as a user would ----

  Optional<SlurmNode> slurmNode(String name) {
    return slurm.listNodes(null).items().stream().filter(n -> n.name().equals(name)).findFirst();
  }

  /** {@code sbatch -w node --wrap "sleep seconds"}; returns the job id. */
  long sbatch(String node, int seconds) throws IOException, InterruptedException {
    return sbatch("low", "normal", node, false, seconds);
  }

  /**
   * {@code sbatch -p high --qos=high -w node --exclusive} of a {@code seconds} sleep: takes the
   * whole node with QOS {@code high}, preempting what runs there under QOS {@code normal} or {@code
   * low} (scripts/slurm-local.sh, {@code preempt/qos}). Returns the job id.
   */
  long sbatchHigh(String node, int seconds) throws IOException, InterruptedException {
    return sbatch("high", "high", node, true, seconds);
  }

  /** {@code sbatch -p partition --qos=qos -w node [--exclusive] --wrap "sleep seconds"}; the id. */
  long sbatch(String partition, String qos, String node, boolean exclusive, int seconds)
      throws IOException, InterruptedException {
    List<String> args = new ArrayList<>(List.of("-p", partition, "--qos=" + qos, "-w", node));
    if (exclusive) {
      args.add("--exclusive");
    }
    args.addAll(List.of("--wrap", "sleep " + seconds));
    return sbatchWith(args.toArray(String[]::new));
  }

  /** {@code sbatch <args>} on the stack's Slurm, output discarded ({@link SlurmCommand#sbatch}). */
  long sbatchWith(String... args) throws IOException, InterruptedException {
    return SlurmCommand.sbatch(stack.slurm().env().get("SLURM_CONF"), List.of(args));
  }

  /**
   * {@code scripts/slurm-local.sh COMMAND} on the stack's Slurm ({@code rest-stop}, {@code start}).
   */
  void slurmScript(String command) {
    LocalSlurmScript.Result r =
        LocalSlurmScript.run(stack.slurm().script(), Duration.ofSeconds(120), command);
    if (r.exitCode() != 0) {
      throw new IllegalStateException("slurm-local.sh " + command + " failed: " + r.output());
    }
  }

  void scancel(long job) throws IOException, InterruptedException {
    run(List.of("scancel", Long.toString(job)));
  }

  /** {@code scontrol update NodeName=node <update...>}, as an administrator would. */
  void scontrol(String node, String update) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("scontrol", "update", "NodeName=" + node));
    cmd.addAll(List.of(update.split(" ")));
    run(cmd);
  }

  /** A Slurm command on the stack's Slurm ({@link SlurmCommand#run}); its output. */
  String run(List<String> cmd) throws IOException, InterruptedException {
    return SlurmCommand.run(stack.slurm().env().get("SLURM_CONF"), cmd);
  }

  @Override
  public void close() {
    try {
      if (ownedNodeSet != null) {
        deleteNodeSet(ownedNodeSet, Duration.ofSeconds(60));
      }
    } finally {
      closeQuietly();
    }
  }

  /**
   * Closes the stack; fails if the API server refused the worker anything (a call Tandem makes that
   * the chart's RBAC does not grant).
   */
  private void closeQuietly() {
    List<String> refused;
    try {
      refused = ChartIdentity.refused(stack.kube().auditLog());
    } catch (IOException e) {
      refused = List.of("the audit log could not be read: " + e);
    }
    slurm.close();
    temporal.getWorkflowServiceStubs().shutdownNow();
    stack.close();
    if (!refused.isEmpty()) {
      throw new AssertionError(
          "the API server refused the worker (the chart's ServiceAccount) "
              + refused.size()
              + " requests, e.g. "
              + refused.subList(0, Math.min(5, refused.size())));
    }
  }
}
