package dev.tandem.dev;

import dev.tandem.devstack.api.LocalApiServer;
import dev.tandem.devstack.kubelet.KubeletConfig;
import dev.tandem.devstack.kubelet.LocalKubelet;
import dev.tandem.devstack.temporal.LocalTemporal;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.slurm.local.LocalSlurmScript;
import dev.tandem.workers.TandemWorker;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The embedded default stack of {@code tandem dev}, also used by the end-to-end tests:
 *
 * <ol>
 *   <li>the real local Slurm (scripts/slurm-local.sh; installed and started if needed),
 *   <li>Temporal's Java test server on 127.0.0.1,
 *   <li>the local Kubernetes API (fabric8's mock server made to behave like a real API server) with
 *       the NodeSet CRD installed and a kubeconfig written for kubectl,
 *   <li>the local kubelet, which runs slurmd pods as real slurmd processes,
 *   <li>the Tandem worker with its watchers, configured like a deployment would be.
 * </ol>
 *
 * <p>{@link #close()} stops everything it started, in reverse order; Slurm only if it started it.
 */
public final class DevStack implements AutoCloseable {
  public static final String CRD = "META-INF/fabric8/nodesets.tandem.dev-v1.yml";

  /**
   * @param stateDir kubeconfig and logs go here
   * @param temporalPort Temporal's port on 127.0.0.1 (0: any free port)
   * @param apiPort the Kubernetes API's port on 127.0.0.1 (0: any free port)
   * @param httpPort the worker's /metrics port on 127.0.0.1 (0: any free port)
   * @param kubeletNodes local Kubernetes nodes
   * @param workerEnv extra worker environment (tuning, e.g. {@code TANDEM_NODE_POLL=1s})
   */
  public record Options(
      Path stateDir,
      int temporalPort,
      int apiPort,
      int httpPort,
      int kubeletNodes,
      Map<String, String> workerEnv) {

    /** What {@code tandem dev} uses by default. */
    public static Options defaults(Path stateDir) {
      return new Options(
          stateDir,
          7233,
          16443,
          9090,
          3,
          Map.of("TANDEM_NODE_POLL", "1s", "TANDEM_SLURM_POLL_INTERVAL", "1s"));
    }
  }

  private final Options options;
  private final PrintWriter log;
  private LocalSlurmScript.Running slurm;
  private LocalTemporal temporal;
  private LocalApiServer api;
  private LocalKubelet kubelet;
  private TandemWorker worker;
  private Path kubeconfig;

  private DevStack(Options options, PrintWriter log) {
    this.options = options;
    this.log = log;
  }

  /** Starts everything; on failure stops what was started and rethrows. */
  public static DevStack start(Options options, PrintWriter log) throws IOException {
    DevStack s = new DevStack(options, log);
    try {
      s.startAll();
      return s;
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
  }

  private void startAll() throws IOException {
    Files.createDirectories(options.stateDir());
    step("Slurm 22.05 on 127.0.0.1 (scripts/slurm-local.sh)");
    slurm = LocalSlurmScript.ensureRunning(LocalSlurmScript.find(System.getenv()), System.getenv());
    step("Temporal test server on 127.0.0.1:" + options.temporalPort());
    temporal = LocalTemporal.start(options.temporalPort());
    step("Kubernetes API on 127.0.0.1:" + options.apiPort());
    api = LocalApiServer.start(options.apiPort());
    api.installCrd(CRD);
    kubeconfig = api.writeKubeconfig(options.stateDir().resolve("kubeconfig"));
    step("local kubelet with " + options.kubeletNodes() + " nodes (slurmd pods run real slurmd)");
    kubelet =
        LocalKubelet.start(
            api.client(),
            KubeletConfig.defaults()
                .withNodes(options.kubeletNodes())
                .withSlurmEnvFile(slurm.envFile())
                .withLogDir(options.stateDir().resolve("logs"))
                .withBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30)));
    step("Tandem worker and watchers");
    worker = new TandemWorker(workerEnv()).start();
  }

  private Map<String, String> workerEnv() {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.putAll(slurm.env());
    env.put("TEMPORAL_ADDRESS", temporal.address());
    env.put("TEMPORAL_NAMESPACE", "default");
    env.put("KUBECONFIG", kubeconfig.toString());
    env.put("TANDEM_HTTP_BIND", "127.0.0.1");
    env.put("TANDEM_HTTP_PORT", Integer.toString(options.httpPort()));
    env.put("TANDEM_LEADER_ELECTION", "false");
    env.put("TANDEM_IDENTITY", "tandem-dev");
    env.putAll(options.workerEnv());
    return env;
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
    return NodeSetResources.generic(api.client()).resource(r).createOr(e -> e.update());
  }

  public String temporalAddress() {
    return temporal.address();
  }

  public Path kubeconfig() {
    return kubeconfig;
  }

  public KubernetesClient kubernetes() {
    return api.client();
  }

  public LocalSlurmScript.Running slurm() {
    return slurm;
  }

  public TandemWorker worker() {
    return worker;
  }

  public int metricsPort() {
    return worker.httpPort();
  }

  @Override
  public void close() {
    if (worker != null) {
      quietly(worker::close);
    }
    if (kubelet != null) {
      quietly(kubelet::close);
    }
    if (api != null) {
      quietly(api::close);
    }
    if (temporal != null) {
      quietly(temporal::close);
    }
    if (slurm != null && slurm.startedHere()) {
      LocalSlurmScript.run(slurm.script(), LocalSlurmScript.STOP_TIMEOUT, "stop");
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
