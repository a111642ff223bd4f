package dev.tandem.dev;

import dev.tandem.devstack.kube.LocalKubernetes;
import dev.tandem.devstack.kubelet.KubeletConfig;
import dev.tandem.devstack.kubelet.LocalKubelet;
import dev.tandem.devstack.kubelet.OsProcessLauncher;
import dev.tandem.devstack.kubelet.ProcessRecords;
import dev.tandem.devstack.temporal.LocalTemporal;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.slurm.SlurmEnvFile;
import dev.tandem.slurm.local.LocalSlurmScript;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The embedded default stack of {@code tandem dev}, also used by the end-to-end tests:
 *
 * <ol>
 *   <li>the real local Slurm (scripts/slurm-local.sh; installed and started if needed), its
 *       instance chosen by {@link Options#slurmEnv()} ({@code tandem dev} has its own, see {@link
 *       DevSlurm}),
 *   <li>what an earlier stack on that Slurm left after a crash, cleaned up ({@link Leftovers}),
 *   <li>Temporal's Java test server on 127.0.0.1,
 *   <li>a real Kubernetes control plane (scripts/kube-local.sh, {@link StackKubernetes}) with the
 *       NodeSet CRD installed; its admin kubeconfig, linked as {@code <state dir>/kubeconfig}
 *       (where the CLI looks last), is the worker's and kubectl's,
 *   <li>the local kubelet, which runs slurmd pods as real slurmd processes and records them,
 *   <li>the Tandem worker with its watchers, configured like a deployment would be, as a separate
 *       supervised JVM ({@link WorkerProcess}) that can be killed and comes back.
 * </ol>
 *
 * <p>Items 1-5 live in this JVM and outlive the worker. One stack per Slurm ({@link StackLock}).
 * {@link #close()} stops everything it started, in reverse order, and leaves no process behind: the
 * jobs still running on its slurmd pods are cancelled and ended before the kubelet stops the
 * slurmds ({@link StackJobs}); Slurm is stopped only if the stack started it (or adopted it from a
 * crashed stack that had started it).
 */
public final class DevStack implements AutoCloseable {
  /** How long a stop waits for the cancelled jobs to end (Slurm's KillWait is 5 s here). */
  static final Duration JOBS_END_WAIT = Duration.ofSeconds(30);

  /**
   * @param stateDir the control plane's state (kube/), logs, the worker's pid file and log go here
   * @param temporalPort Temporal's port on 127.0.0.1 (0: any free port)
   * @param apiPort the Kubernetes API server's port on 127.0.0.1, the first of five the plane takes
   *     (0: free ones)
   * @param httpPort the worker's /metrics port on 127.0.0.1 (0: any free port)
   * @param kubeletNodes local Kubernetes nodes
   * @param workerEnv extra worker environment (tuning, e.g. {@code TANDEM_NODE_POLL=1s})
   * @param slurmEnv the environment of {@code slurm-local.sh}: TANDEM_SLURM_DIR and the port bases
   *     choose the Slurm instance
   * @param cleanUpLeftovers clean up what a crashed stack left on that Slurm ({@link Leftovers})
   */
  public record Options(
      Path stateDir,
      int temporalPort,
      int apiPort,
      int httpPort,
      int kubeletNodes,
      Map<String, String> workerEnv,
      Map<String, String> slurmEnv,
      boolean cleanUpLeftovers) {

    public Options {
      workerEnv = Map.copyOf(workerEnv);
      slurmEnv = Map.copyOf(slurmEnv);
    }

    /** The Slurm named by this process's environment (the tests' one), with clean-up on. */
    public Options(
        Path stateDir,
        int temporalPort,
        int apiPort,
        int httpPort,
        int kubeletNodes,
        Map<String, String> workerEnv) {
      this(
          stateDir,
          temporalPort,
          apiPort,
          httpPort,
          kubeletNodes,
          workerEnv,
          System.getenv(),
          true);
    }

    /** What {@code tandem dev} uses by default: its own Slurm under the state dir. */
    public static Options defaults(Path stateDir) {
      return new Options(
          stateDir,
          7233,
          16443,
          9090,
          3,
          Map.of("TANDEM_NODE_POLL", "1s", "TANDEM_SLURM_POLL_INTERVAL", "1s"),
          DevSlurm.environment(stateDir, System.getenv()),
          true);
    }

    public Options withSlurmEnv(Map<String, String> env) {
      return new Options(
          stateDir,
          temporalPort,
          apiPort,
          httpPort,
          kubeletNodes,
          workerEnv,
          env,
          cleanUpLeftovers);
    }
  }

  private final Options options;
  private final PrintWriter log;
  private final BiFunction<DevStack, Map<String, String>, Map<String, String>> workerEnvHook;
  private StackLock lock;
  private StackSlurm stackSlurm;
  private LocalSlurmScript.Running slurm;
  private ProcessRecords records;
  private List<String> cleanedUp = List.of();
  private LocalTemporal temporal;
  private StackKubernetes kube;
  private LocalKubelet kubelet;
  private LocalTopology topology;
  private WorkerProcess worker;
  private Path kubeconfig;

  private DevStack(
      Options options,
      PrintWriter log,
      BiFunction<DevStack, Map<String, String>, Map<String, String>> workerEnvHook) {
    this.options = options;
    this.log = log;
    this.workerEnvHook = workerEnvHook;
  }

  /** Starts everything; on failure stops what was started and rethrows. */
  public static DevStack start(Options options, PrintWriter log) throws IOException {
    return start(options, log, (stack, env) -> env);
  }

  /**
   * As {@link #start(Options, PrintWriter)}, with {@code workerEnv} given the stack and the
   * worker's complete environment once Slurm, Temporal and Kubernetes run and before the worker
   * starts; the worker gets what it returns (fault tests put a proxy between the worker and
   * slurmrestd, Temporal or the API server this way).
   */
  public static DevStack start(
      Options options,
      PrintWriter log,
      BiFunction<DevStack, Map<String, String>, Map<String, String>> workerEnv)
      throws IOException {
    DevStack s = new DevStack(options, log, workerEnv);
    try {
      s.startAll();
      return s;
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      s.close();
      throw new IOException("interrupted while starting the stack", e);
    }
  }

  private void startAll() throws IOException, InterruptedException {
    Path stateDir = options.stateDir().toAbsolutePath();
    Files.createDirectories(stateDir);
    Path slurmDir = SlurmEnvFile.defaultPath(options.slurmEnv()).getParent().toAbsolutePath();
    lock = StackLock.acquire(slurmDir, "state dir " + stateDir);
    step("Slurm 22.05 on 127.0.0.1 (scripts/slurm-local.sh, state in " + slurmDir + ")");
    stackSlurm = StackSlurm.start(options.slurmEnv(), "with state dir " + stateDir);
    slurm = stackSlurm.running();
    records = new ProcessRecords(slurmDir.resolve("kubelet-processes"));
    if (options.cleanUpLeftovers()) {
      cleanedUp = Leftovers.cleanUp(stateDir, slurm, options.slurmEnv(), records);
      if (stackSlurm.adopted()) {
        List<String> l = new java.util.ArrayList<>(cleanedUp);
        l.add(0, "took over the local Slurm an earlier run started (stopped on exit)");
        cleanedUp = List.copyOf(l);
      }
      if (!cleanedUp.isEmpty() && log != null) {
        log.println("  cleaned up after an earlier run: " + String.join("; ", cleanedUp));
        log.flush();
      }
    }
    step("Temporal server on 127.0.0.1:" + options.temporalPort() + " (scripts/temporal-local.sh)");
    if (log != null && !LocalTemporal.installed()) {
      log.println(
          "  building the Temporal CLI v1.5.1 from Go modules first (once per machine, about 3"
              + " minutes on 2 cores; kept in /var/cache/tandem)");
      log.flush();
    }
    temporal = startTemporal(stateDir.resolve("temporal"));
    Path kubeDir = stateDir.resolve("kube");
    step(
        "Kubernetes control plane on 127.0.0.1:"
            + options.apiPort()
            + " (scripts/kube-local.sh, state in "
            + kubeDir
            + ")");
    if (log != null && !LocalKubernetes.installed()) {
      log.println(
          "  building Kubernetes from Go modules first (once per machine, about 8 minutes on 2"
              + " cores; kept in /var/cache/tandem)");
      log.flush();
    }
    kube = StackKubernetes.start(kubeDir, options.apiPort(), LocalKubernetes.NODE_GRACE);
    kubeconfig = stateDir.resolve("kubeconfig");
    Files.deleteIfExists(kubeconfig);
    Files.createSymbolicLink(kubeconfig, stateDir.relativize(kube.plane().kubeconfig()));
    step("local kubelet with " + options.kubeletNodes() + " nodes (slurmd pods run real slurmd)");
    kubelet =
        LocalKubelet.start(
            kube.client(),
            KubeletConfig.defaults()
                .withNodes(options.kubeletNodes())
                .withSlurmEnvFile(slurm.envFile())
                .withLauncher(records.launcher(new OsProcessLauncher()))
                .withLogDir(stateDir.resolve("logs"))
                .withBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30)));
    kubelet.beforeStop(this::endJobs);
    topology =
        LocalTopology.startIfEnabled(
            kube.client(), slurm.script(), options.slurmEnv(), stateDir, log);
    int httpPort = options.httpPort() == 0 ? freePort() : options.httpPort();
    worker =
        new WorkerProcess(stateDir, httpPort, workerEnvHook.apply(this, workerEnv(httpPort)), log);
    step("Tandem worker and watchers (a separate JVM; log " + worker.logFile() + ")");
    worker.start();
    worker.awaitReady(Duration.ofMinutes(2));
  }

  /**
   * A new Temporal database each start: the Kubernetes control plane starts empty, so workflows of
   * an earlier run would act on objects that are gone. A server an earlier run left behind is
   * stopped first. The Web UI listens on the frontend port + 1000 (a free port when the frontend's
   * is free).
   */
  private LocalTemporal startTemporal(Path dir) throws IOException {
    LocalTemporal.stopLeftover(dir);
    for (String file : List.of("temporal.db", "temporal.db-wal", "temporal.db-shm")) {
      Files.deleteIfExists(dir.resolve(file));
    }
    int port = options.temporalPort();
    return LocalTemporal.start(dir, port, port == 0 ? 0 : port + 1000);
  }

  private Map<String, String> workerEnv(int httpPort) {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.putAll(slurm.env());
    env.put("TEMPORAL_ADDRESS", temporal.address());
    env.put("TEMPORAL_NAMESPACE", "default");
    env.put("KUBECONFIG", kubeconfig.toString());
    env.put("TANDEM_HTTP_BIND", "127.0.0.1");
    env.put("TANDEM_HTTP_PORT", Integer.toString(httpPort));
    env.put("TANDEM_LEADER_ELECTION", "false");
    env.put("TANDEM_IDENTITY", "tandem-dev");
    // Pods through Slurm on the local Slurm: its partition of NodeSet (pool) nodes, and a margin
    // that fits its KillWait of 5 s (pods may take up to 3 s to stop). docs/scheduling.md.
    env.putIfAbsent("TANDEM_SCHED_DEFAULT_PARTITION", "tandem");
    env.putIfAbsent("TANDEM_SCHED_GRACE_MARGIN", "2s");
    // The local Slurm's QOS (scripts/slurm-local.sh): docs/scheduling.md's worked example.
    env.putIfAbsent("TANDEM_SCHED_PRIORITY_CLASSES", "training-high=qos:high;batch-low=qos:low");
    env.putAll(options.workerEnv());
    return env;
  }

  /** A port free right now on 127.0.0.1, kept for the worker across its restarts. */
  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private void step(String what) {
    if (log != null) {
      log.println("  starting " + what);
      log.flush();
    }
  }

  /** Applies a manifest (YAML, one NodeSet) with create-or-replace, as {@code kubectl apply}. */
  public GenericKubernetesResource apply(InputStream yaml) {
    GenericKubernetesResource r = Serialization.unmarshal(yaml, GenericKubernetesResource.class);
    if (r.getMetadata().getNamespace() == null) {
      r.getMetadata().setNamespace("default");
    }
    return NodeSetResources.generic(kube.client()).resource(r).createOr(e -> e.update());
  }

  public String temporalAddress() {
    return temporal.address();
  }

  /** The local Temporal server: its Web UI's address, stop and start it again (fault tests). */
  public LocalTemporal temporal() {
    return temporal;
  }

  /** The control plane's admin kubeconfig: the worker's, and what kubectl is pointed at. */
  public Path kubeconfig() {
    return kubeconfig;
  }

  /** The control plane: its audit log, its kubectl, a fault proxy in front of it (tests). */
  public LocalKubernetes kube() {
    return kube.plane();
  }

  /** The local kubelet (tests: register its Nodes again). */
  public LocalKubelet kubelet() {
    return kubelet;
  }

  /** An admin client of the stack's own (the kubelet's); not to be closed by the caller. */
  public KubernetesClient kubernetes() {
    return kube.client();
  }

  public LocalSlurmScript.Running slurm() {
    return slurm;
  }

  /** The worker process: kill it, start it, wait until it is ready. */
  public WorkerProcess worker() {
    return worker;
  }

  public int metricsPort() {
    return worker.httpPort();
  }

  /** What the start cleaned up after an earlier run (empty: nothing was left). */
  public List<String> cleanedUp() {
    return cleanedUp;
  }

  /** The topology.conf the stack last installed into the local Slurm, or null (none, or off). */
  public String installedTopology() {
    return topology == null ? null : topology.installed();
  }

  @Override
  public void close() {
    if (topology != null) {
      quietly(topology::close);
    }
    if (worker != null) {
      quietly(worker::close);
    }
    if (kubelet != null) {
      quietly(kubelet::close);
    }
    if (kube != null) {
      quietly(kube::close);
    }
    if (temporal != null) {
      quietly(temporal::close);
    }
    if (stackSlurm != null) {
      quietly(stackSlurm::close);
    }
    if (lock != null) {
      lock.close();
    }
  }

  /**
   * Cancels the jobs on the slurmd pods the kubelet runs, and says so; the kubelet runs this before
   * it stops them, on close and at JVM exit (Ctrl-C, SIGTERM) alike.
   */
  private void endJobs() {
    List<String> pods =
        records.list().stream()
            .filter(e -> e.live().isPresent())
            .map(ProcessRecords.Entry::pod)
            .distinct()
            .toList();
    try {
      for (String line : new StackJobs(slurm.env(), JOBS_END_WAIT).cancelOn(pods)) {
        if (log != null) {
          log.println("  stopping: " + line);
          log.flush();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void quietly(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      if (log != null) {
        log.println("  (while stopping: " + e + ")");
      }
    }
  }
}
