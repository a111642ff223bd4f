package dev.tandem.e2e;

import dev.tandem.cli.TandemCli;
import dev.tandem.devstack.faults.ApiFaults;
import dev.tandem.devstack.faults.KubeApiProxy;
import dev.tandem.devstack.faults.TcpProxy;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.Condition;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The end-to-end stack of the fault suite: an {@link E2EStack} whose worker reaches slurmrestd
 * through a {@link TcpProxy} and the API server through a {@link KubeApiProxy} (both passing
 * everything until a test says otherwise), plus the faults the suite injects and what it reads
 * while they last.
 *
 * <ul>
 *   <li>slurmrestd itself: {@code slurm-local.sh rest-stop | rest-kill | rest-start} (slurmctld,
 *       slurmd and jobs keep running; on 22.05 the worker drains through {@code scontrol}, which
 *       talks to slurmctld, and reads through REST).
 *   <li>The worker's slurmrestd connections: {@link #slurmProxy} (cut answers mid-body).
 *   <li>The Temporal server itself: {@link #temporalStop()} stops its process, {@link
 *       #temporalStart()} starts it again on the same database (every workflow kept).
 *   <li>The worker's Kubernetes API requests: {@link #apiFaults()} (5xx, 409, delays, dropped
 *       watches).
 * </ul>
 *
 * The test's own clients, the kubelet and {@link InvariantMonitor} bypass the proxies, as do the
 * control plane's own components.
 */
final class FaultStack implements AutoCloseable {
  static final Duration LIMIT = Duration.ofSeconds(90);
  static final Duration EVERY = Duration.ofMillis(200);

  final E2EStack e2e;
  final TcpProxy slurmProxy;
  final KubeApiProxy apiProxy;

  private FaultStack(E2EStack e2e, TcpProxy slurmProxy, KubeApiProxy apiProxy) {
    this.e2e = e2e;
    this.slurmProxy = slurmProxy;
    this.apiProxy = apiProxy;
  }

  /** Stops the Temporal server's process (SIGTERM); its database stays. */
  void temporalStop() throws IOException {
    e2e.stack.temporal().stop();
  }

  /** Starts the Temporal server again on the same database and port (a no-op when it runs). */
  void temporalStart() throws IOException {
    e2e.stack.temporal().start();
  }

  /**
   * {@link #start} with NodeSet {@code set} of {@code replicas} ready; {@link #close()} deletes it
   * (after mending whatever fault a failed test left on).
   */
  static FaultStack withNodeSet(String set, int replicas, Map<String, String> env)
      throws IOException {
    FaultStack f = start(env);
    try {
      f.e2e.ownNodeSet(set, replicas);
    } catch (RuntimeException | Error x) {
      f.close();
      throw x;
    }
    return f;
  }

  static FaultStack start(Map<String, String> env) throws IOException {
    AtomicReference<TcpProxy> rest = new AtomicReference<>();
    AtomicReference<KubeApiProxy> api = new AtomicReference<>();
    try {
      E2EStack e =
          E2EStack.start(
              env,
              (stack, w) -> {
                Map<String, String> m = new HashMap<>(w);
                URI slurm = URI.create(w.get("SLURM_REST_URL"));
                try {
                  rest.set(TcpProxy.start(slurm.getHost(), slurm.getPort(), 0));
                  api.set(KubeApiProxy.start(stack.kube()));
                  Path kubeconfig = stack.kubeconfig().resolveSibling("proxy.kubeconfig");
                  m.put(
                      "KUBECONFIG",
                      ChartIdentity.kubeconfig(stack.kubernetes(), api.get().url(), kubeconfig)
                          .toString());
                } catch (IOException x) {
                  throw new UncheckedIOException(x);
                }
                m.put("SLURM_REST_URL", "http://" + rest.get().address());
                return m;
              });
      cancelLeftoverJobs(e);
      return new FaultStack(e, rest.get(), api.get());
    } catch (IOException | RuntimeException x) {
      closeQuietly(rest.get());
      if (api.get() != null) {
        api.get().close();
      }
      throw x;
    }
  }

  /**
   * Test jobs ({@code sbatch --wrap}) an earlier run left in this test Slurm, e.g. when its JVM was
   * killed before its cleanup: Slurm requeues them when their node goes and starts them again on
   * the same node name, which then stays busy and blocks this run's drains. Cancelled before the
   * test.
   */
  private static void cancelLeftoverJobs(E2EStack e) throws IOException {
    try {
      String ids = e.run(List.of("squeue", "-h", "-n", "wrap", "-o", "%i")).trim();
      if (!ids.isEmpty()) {
        System.out.println(
            "  cancelling test jobs left by an earlier run: " + ids.replace('\n', ' '));
        List<String> cmd = new ArrayList<>(List.of("scancel"));
        cmd.addAll(List.of(ids.split("\\s+")));
        e.run(cmd);
      }
    } catch (InterruptedException x) {
      Thread.currentThread().interrupt();
      throw new IOException(x);
    }
  }

  // ---- faults ----

  /** {@code slurm-local.sh rest-stop} (SIGTERM to slurmrestd only). */
  void restStop() {
    slurmScript("rest-stop");
  }

  /** {@code slurm-local.sh rest-kill} (SIGKILL to slurmrestd only, requests in flight die). */
  void restKill() {
    slurmScript("rest-kill");
  }

  /** {@code slurm-local.sh rest-start}: returns once slurmrestd answers. */
  void restStart() {
    slurmScript("rest-start");
  }

  private void slurmScript(String command) {
    e2e.slurmScript(command);
  }

  ApiFaults apiFaults() {
    return apiProxy.faults();
  }

  // ---- what the user sees ----

  /** The NodeSet's condition as its {@code status} query computes it (what tandem status shows). */
  Condition condition(String nodeSet, String type) {
    return e2e.nodeSetStatus(nodeSet).status().condition(type);
  }

  /** The condition as written to the NodeSet custom resource ({@code kubectl get nds -o yaml}). */
  Map<?, ?> crCondition(String nodeSet, String type) {
    Map<?, ?> st = (Map<?, ?>) e2e.nodeSet(nodeSet).getAdditionalProperties().get("status");
    if (st == null || !(st.get("conditions") instanceof List<?> l)) {
      return null;
    }
    return l.stream()
        .map(c -> (Map<?, ?>) c)
        .filter(c -> type.equals(c.get("type")))
        .findFirst()
        .orElse(null);
  }

  /**
   * Waits until the status query shows {@code type} with {@code status}; returns the milliseconds
   * from {@code sinceNanos} (a {@link System#nanoTime()}) to the first sighting.
   */
  long awaitCondition(String nodeSet, String type, String status, long sinceNanos, Duration limit) {
    Await.until(
        nodeSet + " " + type + "=" + status,
        limit,
        Duration.ofMillis(100),
        () -> condition(nodeSet, type),
        c -> c != null && status.equals(c.status()));
    return (System.nanoTime() - sinceNanos) / 1_000_000;
  }

  /** {@code tandem ARGS --address <Temporal>} in-process: exit code and stdout + stderr. */
  String tandem(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--address");
    all.add(e2e.stack.temporalAddress());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code =
        TandemCli.run(new PrintWriter(out), new PrintWriter(err), all.toArray(String[]::new));
    return "exit " + code + "\n" + out + err;
  }

  /** A monitor of the invariants for one NodeSet, started. */
  InvariantMonitor monitor(String nodeSet) {
    InvariantMonitor m =
        new InvariantMonitor(e2e.slurm, e2e.k8s, "default", nodeSet, Duration.ofMillis(250));
    m.start();
    return m;
  }

  static long msSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }

  @Override
  public void close() {
    // Whatever a failed test left broken is mended first: the NodeSets are deleted through it.
    try {
      apiFaults().clear();
      slurmProxy.pass();
      temporalStart();
      restStart(); // a no-op when slurmrestd runs
    } catch (IOException | RuntimeException e) {
      System.out.println("fault stack: while mending before close: " + e);
    }
    try {
      e2e.close();
    } finally {
      closeQuietly(slurmProxy);
      apiProxy.close();
    }
  }

  private static void closeQuietly(TcpProxy p) {
    if (p != null) {
      p.close();
    }
  }
}
