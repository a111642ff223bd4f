package dev.tandem.devstack.kube;

import dev.tandem.devstack.LocalScript;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The real Kubernetes control plane of {@code tandem dev} and of every test above unit level: etcd,
 * kube-apiserver, kube-controller-manager and kube-scheduler, started and stopped by {@code
 * scripts/kube-local.sh} on 127.0.0.1 with their state in a directory of their own, so {@link
 * #stop()} then {@link #start()} brings back every object (docs/kube-local.md).
 */
public final class LocalKubernetes implements AutoCloseable {
  private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(60);
  private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

  /** The ports one plane takes from its API server's: etcd (2), controller manager, scheduler. */
  static final int PORTS = 5;

  /** The NodeSet CRD as the activities module's build generates it. */
  public static final String NODESET_CRD = "META-INF/fabric8/nodesets.tandem.dev-v1.yml";

  private final LocalScript script;
  private final Path dir;
  private final int port;
  private Path temporaryDir;

  /**
   * How long the node lifecycle controller waits for a node's heartbeat before it takes the node
   * for lost: 20 s, so that tests of a lost node run quickly (a cluster's default is 50 s).
   */
  public static final Duration NODE_GRACE = Duration.ofSeconds(20);

  private LocalKubernetes(Path dir, int port, Duration nodeGrace) {
    this.script = LocalScript.of("kube-local.sh", env(dir, port, nodeGrace));
    this.dir = dir;
    this.port = port;
  }

  /**
   * Builds the binaries if needed and starts a control plane with its state in {@code dir}.
   *
   * @param port the API server's port on 127.0.0.1, the first of {@value #PORTS} (0: free ones)
   */
  public static LocalKubernetes start(Path dir, int port) throws IOException {
    return start(dir, port, NODE_GRACE);
  }

  /**
   * As {@link #start(Path, int)}, with the node lifecycle controller's grace period for a missing
   * heartbeat: a simulated fleet whose node agents renew their Leases rarely needs a longer one.
   */
  public static LocalKubernetes start(Path dir, int port, Duration nodeGrace) throws IOException {
    int p = port == 0 ? freePorts() : port;
    LocalKubernetes k = new LocalKubernetes(dir, p, nodeGrace);
    k.script.run(INSTALL_TIMEOUT, "install");
    k.start();
    return k;
  }

  /**
   * A control plane on free ports, its state in a temporary directory removed at {@link #close}.
   */
  public static LocalKubernetes startTemporary() throws IOException {
    Path dir = Files.createTempDirectory("tandem-kube-");
    LocalKubernetes k = start(dir, 0);
    k.temporaryDir = dir;
    return k;
  }

  /** Whether every binary is at hand (KUBEBUILDER_ASSETS, PATH or cached): no build needed. */
  public static boolean installed() {
    return LocalScript.of("kube-local.sh", System.getenv())
        .succeeds(Duration.ofSeconds(30), "installed");
  }

  /** Stops a control plane an earlier run left running from {@code dir}, if any. */
  public static void stopLeftover(Path dir) throws IOException {
    new LocalKubernetes(dir, 0, NODE_GRACE).stop();
  }

  private static Map<String, String> env(Path dir, int port, Duration nodeGrace) {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put("TANDEM_KUBE_NODE_GRACE", nodeGrace.toSeconds() + "s");
    env.put("TANDEM_KUBE_DIR", dir.toAbsolutePath().toString());
    env.put("TANDEM_KUBE_PORT", Integer.toString(port));
    return env;
  }

  /** Starts every component again on the same state and ports (after {@link #stop} or a kill). */
  public void start() throws IOException {
    script.run(START_TIMEOUT, "start");
  }

  /**
   * Stops every component (SIGTERM, SIGKILL after 10 s); etcd keeps every object. The calls
   * Tandem's clients made are exported from the audit log for the chart's RBAC check ({@link
   * TandemCalls}).
   */
  public void stop() throws IOException {
    script.run(Duration.ofSeconds(60), "stop");
    TandemCalls.export(auditLog(), port);
  }

  /** The {@code kubectl} of the plane's release (or the one the script found), for tests. */
  public Path kubectl() throws IOException {
    for (String line : script.run(Duration.ofSeconds(30), "path").split("\n")) {
      if (line.startsWith("kubectl ")) {
        return Path.of(line.substring("kubectl ".length()).trim());
      }
    }
    throw new IOException("scripts/kube-local.sh path named no kubectl");
  }

  /** The admin kubeconfig (cluster-admin by a client certificate). */
  public Path kubeconfig() {
    return dir.resolve("admin.kubeconfig");
  }

  /** The API server's audit log: one JSON event per request, at Metadata level. */
  public Path auditLog() {
    return dir.resolve("audit.log");
  }

  /** {@code https://127.0.0.1:<port>}. */
  public String url() {
    return "https://127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  /** The fabric8 configuration of the admin kubeconfig. */
  public Config adminConfig() throws IOException {
    return Config.fromKubeconfig(null, Files.readString(kubeconfig()), kubeconfig().toString());
  }

  /** A new client as cluster-admin; the caller closes it. */
  public KubernetesClient adminClient() throws IOException {
    return new KubernetesClientBuilder().withConfig(adminConfig()).build();
  }

  /**
   * Applies the NodeSet CRD (as built with the activities module, the chart's copy) and waits until
   * the API server serves it.
   */
  public void installNodeSetCrd(KubernetesClient client) throws IOException {
    CustomResourceDefinition crd;
    try (InputStream in = LocalKubernetes.class.getClassLoader().getResourceAsStream(NODESET_CRD)) {
      if (in == null) {
        throw new IOException(NODESET_CRD + " is not on the classpath");
      }
      crd = client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
    }
    client.resource(crd).serverSideApply();
    client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName(crd.getMetadata().getName())
        .waitUntilCondition(
            c ->
                c != null
                    && c.getStatus() != null
                    && c.getStatus().getConditions() != null
                    && c.getStatus().getConditions().stream()
                        .anyMatch(
                            x -> "Established".equals(x.getType()) && "True".equals(x.getStatus())),
            60,
            TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    try {
      stop();
      if (temporaryDir != null) {
        LocalScript.deleteTree(temporaryDir);
      }
    } catch (IOException e) {
      System.err.println("LocalKubernetes: " + e.getMessage());
    }
  }

  /**
   * The first of {@value #PORTS} consecutive free ports, tried at random from 20000 up to below the
   * kernel's ephemeral range (32768 by default), where no outgoing connection can take one between
   * this check and the plane's start.
   */
  public static int freePorts() throws IOException {
    int below = Math.max(20_000 + 1_000, ephemeralStart());
    for (int attempt = 0; attempt < 50; attempt++) {
      int base = 20_000 + ThreadLocalRandom.current().nextInt(below - 20_000 - PORTS);
      if (allFree(base)) {
        return base;
      }
    }
    throw new IOException("no " + PORTS + " consecutive free ports on 127.0.0.1 in 50 tries");
  }

  private static int ephemeralStart() {
    try {
      String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
      return Integer.parseInt(range.split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }

  private static boolean allFree(int base) {
    for (int p = base; p < base + PORTS; p++) {
      try (ServerSocket s = new ServerSocket(p, 1, InetAddress.getLoopbackAddress())) {
        s.setReuseAddress(true);
      } catch (IOException e) {
        return false;
      }
    }
    return true;
  }
}
