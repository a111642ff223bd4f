package dev.tandem.devstack.api;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.logging.Level;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kubernetes API on 127.0.0.1 that behaves like a real API server where Tandem and kubectl rely
 * on it: fabric8's {@link KubernetesMockServer} (HTTP, WebSocket, keyed store) with every request
 * routed through a compatibility layer (see {@code docs/local-api.md}). Starts with the namespaces
 * {@code default}, {@code kube-system}, {@code kube-public}, {@code kube-node-lease}.
 */
public final class LocalApiServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LocalApiServer.class);

  // MockWebServer logs every request at INFO through java.util.logging; JUL holds loggers weakly,
  // so keep a strong reference to the one we quiet.
  private static final java.util.logging.Logger MOCK_LOG =
      java.util.logging.Logger.getLogger(MockWebServer.class.getName());

  /** Recent changes kept for watches that resume from a resourceVersion. */
  public static final int DEFAULT_WATCH_WINDOW = 4096;

  private final KubernetesMockServer server;
  private final MockWebServer web;
  private final WatchHub hub;
  private final PodLogs logs;
  private final ScheduledExecutorService timer;
  private final LocalApiDispatcher dispatcher;
  private final int port;
  private final KubernetesClient client;
  private final ApiFaults faults;
  private final KubeVersion version;
  private final GarbageCollector gc;
  private final Store store;
  private final DisruptionBudgets budgets;

  private LocalApiServer(int requestedPort, int watchWindow, KubeVersion version)
      throws IOException {
    this.version = version;
    MOCK_LOG.setLevel(Level.WARNING);
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "local-api-timer");
              t.setDaemon(true);
              return t;
            });
    dispatcher = new LocalApiDispatcher();
    ResourceCatalog catalog = new ResourceCatalog();
    hub = new WatchHub(dispatcher.lock, timer, watchWindow);
    faults = new ApiFaults(hub::dropAll);
    dispatcher.setFaults(faults);
    store = new Store(dispatcher, catalog, hub);
    hub.setStore(store);
    Writes writes = new Writes(store, catalog, version);
    Deletes deletes = new Deletes(store, catalog);
    writes.setDeletes(deletes);
    gc = new GarbageCollector(dispatcher.lock.writeLock());
    store.setGarbageCollector(gc);
    gc.start(new GcAttempts(store, catalog, deletes, gc));
    budgets = new DisruptionBudgets(store, catalog, timer, dispatcher.lock.writeLock());
    store.setBudgets(budgets);
    Subresources subs = new Subresources(store, catalog, writes, deletes, budgets);
    logs = new PodLogs(store, timer, dispatcher.lock);
    int[] boundPort = new int[1];
    dispatcher.setRouter(
        new Router(
            dispatcher.lock,
            catalog,
            new Reads(store),
            writes,
            deletes,
            subs,
            hub,
            logs,
            () -> "127.0.0.1:" + boundPort[0],
            version));
    web = new StreamingWebServer();
    server = new KubernetesMockServer(new Context(), web, new HashMap<>(), dispatcher, false);
    server.init(InetAddress.getByName("127.0.0.1"), requestedPort);
    port = server.getPort();
    boundPort[0] = port;
    client = newClient();
    bootstrap();
    log.info("local Kubernetes API listening on {}", url());
  }

  /** Starts on 127.0.0.1; {@code port} 0 picks an ephemeral port. */
  public static LocalApiServer start(int port) throws IOException {
    return new LocalApiServer(port, DEFAULT_WATCH_WINDOW, KubeVersion.DEFAULT);
  }

  /**
   * As {@link #start(int)}, emulating another Kubernetes version: {@code /version} reports it, and
   * pod fields newer than it are unknown (400 with {@code fieldValidation=Strict}, dropped with a
   * warning otherwise), as on a cluster of that version. See docs/local-api.md.
   */
  public static LocalApiServer start(int port, KubeVersion version) throws IOException {
    return new LocalApiServer(port, DEFAULT_WATCH_WINDOW, version);
  }

  /** As {@link #start(int)}, with the number of recent changes kept for resuming watches. */
  public static LocalApiServer start(int port, int watchWindow) throws IOException {
    if (watchWindow < 1) {
      throw new IllegalArgumentException("watchWindow must be at least 1, got " + watchWindow);
    }
    return new LocalApiServer(port, watchWindow, KubeVersion.DEFAULT);
  }

  private void bootstrap() {
    for (String ns : List.of("default", "kube-system", "kube-public", "kube-node-lease")) {
      client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
    }
    for (Map.Entry<String, Integer> pc :
        Map.of("system-cluster-critical", 2000000000, "system-node-critical", 2000001000)
            .entrySet()) {
      client
          .scheduling()
          .v1()
          .priorityClasses()
          .resource(
              new PriorityClassBuilder()
                  .withNewMetadata()
                  .withName(pc.getKey())
                  .endMetadata()
                  .withValue(pc.getValue())
                  .withDescription(
                      "Used for system critical pods that must not be moved from their current node.")
                  .build())
          .create();
    }
  }

  /** The Kubernetes version this server emulates. */
  /**
   * Serves {@code pods/{name}/log} from the files a local kubelet writes there ({@code
   * KubeletConfig.withLogDir}): what a real API server gets from each node's kubelet. Without it
   * every pod's log is empty.
   */
  public LocalApiServer servePodLogsFrom(Path logDir) {
    logs.setLogDir(logDir);
    return this;
  }

  /** Watches open now, over WebSocket or HTTP (for tests in this package). */
  int openWatches() {
    return hub.openWatches();
  }

  public KubeVersion version() {
    return version;
  }

  public String url() {
    return "http://127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  /**
   * Faults to inject: requests answering 5xx or 409, or late, for a while (see {@link ApiFaults}).
   */
  public ApiFaults faults() {
    return faults;
  }

  /**
   * Waits until the garbage collector, which runs apart from the API calls as on a cluster, has
   * nothing queued or running; false if that did not happen within {@code max}. For tests that want
   * to see that the GC left something alone.
   */
  public boolean awaitGarbageCollector(Duration max) {
    try {
      return gc.awaitIdle(max);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Requests answered so far that came from Tandem's own clients (User-Agent {@code tandem/...},
   * what {@code KubeClients} sends; a watch counts once, when it opens): the worker's load on the
   * API server, apart from the test's or benchmark's own clients.
   */
  public long tandemRequests() {
    return dispatcher.tandemRequests.get();
  }

  /** The dispatcher (its lock, the mock's map and the index), for tests in this package. */
  LocalApiDispatcher dispatcher() {
    return dispatcher;
  }

  /** The typed store, for tests in this package (hold the dispatcher's lock). */
  Store store() {
    return store;
  }

  /** The disruption controller, for tests in this package. */
  DisruptionBudgets budgets() {
    return budgets;
  }

  /** A client owned by the server (closed with it). */
  public KubernetesClient client() {
    return client;
  }

  /** A new client for this server (the caller closes it); default namespace {@code default}. */
  public KubernetesClient newClient() {
    Config config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl(url())
            .withNamespace("default")
            .withHttp2Disable(true)
            .withRequestTimeout(30_000)
            .build();
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** Writes a kubeconfig (mode 0600) that kubectl and fabric8 accept; returns the path. */
  public Path writeKubeconfig(Path file) {
    try {
      return Kubeconfig.write(file, url());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write kubeconfig " + file, e);
    }
  }

  /**
   * Registers the CRD(s) in a YAML or JSON document: a classpath resource (e.g. {@code
   * META-INF/fabric8/nodesets.tandem.dev-v1.yml}) or, if no such resource exists, a file path.
   * Creates or replaces; returns the CRD names.
   */
  public List<String> installCrd(String resourceOrFile) {
    String res = resourceOrFile.startsWith("/") ? resourceOrFile.substring(1) : resourceOrFile;
    InputStream in = Thread.currentThread().getContextClassLoader().getResourceAsStream(res);
    try {
      if (in == null) {
        Path p = Path.of(resourceOrFile);
        if (!Files.isRegularFile(p)) {
          throw new IllegalArgumentException(
              "no CRD at " + resourceOrFile + ": neither a classpath resource nor a file");
        }
        in = Files.newInputStream(p);
      }
      try (InputStream stream = in) {
        return installCrd(stream);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read CRD " + resourceOrFile, e);
    }
  }

  public List<String> installCrd(InputStream yaml) {
    List<HasMetadata> items = client.load(yaml).items();
    if (items.isEmpty()) {
      throw new IllegalArgumentException("the document holds no objects");
    }
    return items.stream()
        .map(
            item -> {
              if (!(item instanceof CustomResourceDefinition crd)) {
                throw new IllegalArgumentException(
                    "not an apiextensions.k8s.io/v1 CustomResourceDefinition: "
                        + item.getApiVersion()
                        + " "
                        + item.getKind());
              }
              var op = client.apiextensions().v1().customResourceDefinitions();
              CustomResourceDefinition existing = op.withName(crd.getMetadata().getName()).get();
              if (existing == null) {
                op.resource(crd).create();
              } else {
                crd.getMetadata().setResourceVersion(existing.getMetadata().getResourceVersion());
                op.resource(crd).update();
              }
              return crd.getMetadata().getName();
            })
        .toList();
  }

  @Override
  public void close() {
    try {
      client.close();
    } finally {
      try {
        server.destroy();
      } finally {
        timer.shutdownNow();
        gc.close();
      }
    }
    log.info("local Kubernetes API on port {} stopped", port);
  }
}
