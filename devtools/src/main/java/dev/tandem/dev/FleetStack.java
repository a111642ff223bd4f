package dev.tandem.dev;

import dev.tandem.bench.SimKubelet;
import dev.tandem.devstack.temporal.LocalTemporal;
import dev.tandem.slurm.fake.FakePartition;
import dev.tandem.slurm.fake.FakeSlurmrestd;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The stack of {@code tandem bench fleet}, all on 127.0.0.1: the simulated Slurm ({@link
 * FakeSlurmrestd}, v0.0.44, no static nodes: every slurmd pod registers as a dynamic node), the
 * real Kubernetes control plane with the NodeSet CRD ({@link StackKubernetes}), the Temporal
 * server, and ONE Tandem worker as a separate JVM ({@link WorkerProcess}), so its CPU time and RSS
 * are its own. There is no kubelet: the benchmark brings a simulated one (it needs {@link #fake()}
 * and {@link #kubernetes()}).
 */
public final class FleetStack implements AutoCloseable {
  private final Path stateDir;
  private final PrintWriter log;
  private FakeSlurmrestd fake;
  private LocalTemporal temporal;
  private StackKubernetes kube;
  private TandemRequests tandemRequests;
  private WorkerProcess worker;

  private FleetStack(Path stateDir, PrintWriter log) {
    this.stateDir = stateDir.toAbsolutePath();
    this.log = log;
  }

  /**
   * Starts everything; on failure stops what was started and rethrows.
   *
   * @param registrationDelay how long a slurmd takes to register after its pod runs
   * @param workerEnv extra worker environment (tuning), over the stack's own
   */
  public static FleetStack start(
      Path stateDir, Duration registrationDelay, Map<String, String> workerEnv, PrintWriter log)
      throws IOException {
    FleetStack s = new FleetStack(stateDir, log);
    try {
      s.startAll(registrationDelay, workerEnv);
      return s;
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      s.close();
      throw new IOException("interrupted while starting the fleet stack", e);
    }
  }

  private void startAll(Duration registrationDelay, Map<String, String> extra)
      throws IOException, InterruptedException {
    Files.createDirectories(stateDir);
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    Path keyFile = stateDir.resolve("jwt_hs256.key");
    Files.write(keyFile, key);
    step("simulated slurmrestd v0.0.44 (FakeSlurmrestd)");
    // Partition "tandem" takes every node, as the product's default scheduling partition expects.
    fake =
        FakeSlurmrestd.start(
            FakeSlurmrestd.Options.defaults(key).withRegistrationDelay(registrationDelay),
            List.of(FakePartition.all("tandem", 1)),
            List.of());
    step(
        "Temporal server (scripts/temporal-local.sh, state in "
            + stateDir.resolve("temporal")
            + ")");
    temporal = LocalTemporal.start(stateDir.resolve("temporal"), 0, -1);
    Path kubeDir = stateDir.resolve("kube");
    step("Kubernetes control plane (scripts/kube-local.sh, state in " + kubeDir + ")");
    kube = StackKubernetes.start(kubeDir, 0, SimKubelet.NODE_GRACE);
    tandemRequests = new TandemRequests(kube.plane().auditLog());
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put("SLURM_REST_URL", fake.url().toString());
    env.put("SLURM_JWT_KEY_FILE", keyFile.toString());
    env.put("SLURM_USER", "root");
    env.put("TEMPORAL_ADDRESS", temporal.address());
    env.put("TEMPORAL_NAMESPACE", "default");
    env.put("KUBECONFIG", kube.plane().kubeconfig().toString());
    env.put("TANDEM_HTTP_BIND", "127.0.0.1");
    env.put("TANDEM_LEADER_ELECTION", "false");
    env.put("TANDEM_IDENTITY", "tandem-bench-fleet");
    env.put("TANDEM_SCHED_DEFAULT_PARTITION", "tandem");
    int httpPort = freePort();
    env.put("TANDEM_HTTP_PORT", Integer.toString(httpPort));
    env.putAll(extra);
    worker = new WorkerProcess(stateDir, httpPort, env, log);
    step("Tandem worker (a separate JVM; log " + worker.logFile() + ")");
    worker.start();
    worker.awaitReady(Duration.ofMinutes(2));
  }

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

  public FakeSlurmrestd fake() {
    return fake;
  }

  public KubernetesClient kubernetes() {
    return kube.client();
  }

  /** The API requests the worker made so far (the plane's audit log, {@link TandemRequests}). */
  public long tandemRequests() throws IOException {
    return tandemRequests.count();
  }

  public String temporalAddress() {
    return temporal.address();
  }

  public WorkerProcess worker() {
    return worker;
  }

  @Override
  public void close() {
    if (worker != null) {
      quietly(worker::close);
    }
    if (kube != null) {
      quietly(kube::close);
    }
    if (temporal != null) {
      quietly(temporal::close);
    }
    if (fake != null) {
      quietly(fake::close);
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
