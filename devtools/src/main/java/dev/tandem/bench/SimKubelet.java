package dev.tandem.bench;

import dev.tandem.devstack.kubelet.NodeLeases;
import dev.tandem.slurm.fake.FakeSlurmrestd;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelets (and default scheduler) of a simulated fleet, inside the benchmark process: no
 * processes run. It
 *
 * <ol>
 *   <li>registers N Kubernetes nodes {@code sim-<i>}, Ready, labelled with {@code
 *       kubernetes.io/hostname} and a topology block ({@code topology.tandem.dev/block}, 32 nodes
 *       each);
 *   <li>binds each unbound default-scheduler pod through {@code pods/binding} to a free,
 *       schedulable node (one slurmd pod per node, as the NodeSet's pods want whole machines);
 *   <li>marks a pod bound to one of its nodes Running and Ready and starts its "slurmd": {@link
 *       FakeSlurmrestd#registerNode} with the pod's name, which registers after the fake's
 *       registration delay;
 *   <li>on a pod's graceful deletion stops the "slurmd" ({@link FakeSlurmrestd#slurmdLost}: the
 *       node shows NOT_RESPONDING until Tandem deletes it or a new pod registers) and finishes the
 *       deletion with grace 0, as a kubelet does; the node is free again when the pod is gone.
 * </ol>
 *
 * Informer callbacks only queue work on a few threads (one per pod name), so they never block.
 */
public final class SimKubelet implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SimKubelet.class);
  public static final String BLOCK_LABEL = "topology.tandem.dev/block";

  /**
   * The simulated nodes renew their Leases every {@link #LEASE_RENEW}, not every 10 s as a kubelet
   * does: thousands of heartbeats a minute would take the two cores the bench measures Tandem on.
   * The fleet's control plane waits {@link #NODE_GRACE} for a heartbeat before it takes a node for
   * lost, so the nodes stay Ready as long as the simulation runs.
   */
  static final Duration LEASE_RENEW = Duration.ofMinutes(2);

  public static final Duration NODE_GRACE = Duration.ofMinutes(10);
  static final int BLOCK_SIZE = 32;

  private final KubernetesClient client;
  private final FakeSlurmrestd fake;
  private final int nodes;
  // A pod's events are handled in order, on the one thread its name hashes to: with several
  // threads per pod a late "being deleted" update of an old pod could run after the pod was gone
  // and
  // its successor (same name, new uid) had registered, and mark the successor's slurmd lost. Pods
  // of different names run in parallel: a kubelet per node does not wait for the others.
  private static final int STRIPES = 4;

  private final ExecutorService[] stripes = new ExecutorService[STRIPES];
  private final java.util.concurrent.atomic.AtomicBoolean retryQueued =
      new java.util.concurrent.atomic.AtomicBoolean();

  /** Node name -> uid of the pod bound there (until it is gone). */
  private final Map<String, String> occupant = new ConcurrentHashMap<>();

  private final Set<String> started = ConcurrentHashMap.newKeySet();
  private final Set<String> stopped = ConcurrentHashMap.newKeySet();
  private final AtomicLong registrations = new AtomicLong();
  private volatile NodeLeases leases;
  private volatile SharedIndexInformer<Node> nodeInformer;
  private volatile SharedIndexInformer<Pod> podInformer;

  public SimKubelet(KubernetesClient client, FakeSlurmrestd fake, int nodes) {
    this.client = client;
    this.fake = fake;
    this.nodes = nodes;
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = Executors.newSingleThreadExecutor(daemon());
    }
  }

  private void onPod(Pod p, Runnable r) {
    int i = Math.floorMod(p.getMetadata().getName().hashCode(), STRIPES);
    stripes[i].execute(() -> quietly(r));
  }

  public static String nodeName(int i) {
    return "sim-" + i;
  }

  /** Registers the nodes and starts binding and running pods. */
  public void start() throws Exception {
    Map<String, Quantity> cap =
        Map.of(
            "cpu",
            new Quantity("64"),
            "memory",
            new Quantity("512Gi"),
            "pods",
            new Quantity("110"));
    for (int i = 0; i < nodes; i++) {
      String name = nodeName(i);
      Node n =
          new NodeBuilder()
              .withNewMetadata()
              .withName(name)
              .withLabels(
                  Map.of(
                      "kubernetes.io/hostname",
                      name,
                      "kubernetes.io/os",
                      "linux",
                      BLOCK_LABEL,
                      "block-" + (i / BLOCK_SIZE)))
              .endMetadata()
              .withNewSpec()
              .endSpec()
              // Ready from the start, in the create: a status written after it races the node
              // lifecycle controller's taint (409 on a real API server).
              .withNewStatus()
              .withCapacity(cap)
              .withAllocatable(cap)
              .withConditions(
                  new NodeConditionBuilder()
                      .withType("Ready")
                      .withStatus("True")
                      .withReason("KubeletReady")
                      .withLastHeartbeatTime(ts(Instant.now()))
                      .withLastTransitionTime(ts(Instant.now()))
                      .build())
              .endStatus()
              .build();
      client.nodes().resource(n).create();
    }
    List<String> names = new java.util.ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      names.add(nodeName(i));
    }
    leases = new NodeLeases(client, names, LEASE_RENEW);
    leases.start();
    nodeInformer = client.nodes().runnableInformer(0);
    // An uncordoned node may take a pod that waits for one.
    nodeInformer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Node n) {}

          @Override
          public void onUpdate(Node o, Node n) {
            if (podInformer != null && podInformer.hasSynced()) {
              retryUnbound();
            }
          }

          @Override
          public void onDelete(Node n, boolean unknown) {}
        });
    podInformer = client.pods().inAnyNamespace().runnableInformer(0);
    podInformer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod p) {
            onPod(p, () -> sync(p));
          }

          @Override
          public void onUpdate(Pod o, Pod p) {
            onPod(p, () -> sync(p));
          }

          @Override
          public void onDelete(Pod p, boolean unknown) {
            onPod(p, () -> gone(p));
          }
        });
    nodeInformer.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
    podInformer.start().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  /** Slurm registrations started so far (one per pod start). */
  public long registrations() {
    return registrations.get();
  }

  /** The Kubernetes node each running slurmd pod is on, by pod name (from the informer's cache). */
  public Map<String, String> podsByName() {
    Map<String, String> m = new ConcurrentHashMap<>();
    for (Pod p : podInformer.getStore().list()) {
      String n = p.getSpec().getNodeName();
      if (n != null && !n.isEmpty()) {
        m.put(p.getMetadata().getName(), n);
      }
    }
    return m;
  }

  /** The cached pod's uid, phase and deletion mark, for a progress line. */
  public String describe(String namespace, String name) {
    Pod p = podInformer.getStore().getByKey(namespace + "/" + name);
    if (p == null) {
      return "absent";
    }
    return p.getMetadata().getUid().substring(0, 8)
        + "/"
        + (p.getStatus() == null ? "-" : p.getStatus().getPhase())
        + "/node="
        + p.getSpec().getNodeName()
        + (p.getMetadata().getDeletionTimestamp() != null ? "/deleting" : "")
        + (started.contains(p.getMetadata().getUid()) ? "/started" : "");
  }

  /** Whether the pod is Running, Ready and not being deleted (from the informer's cache). */
  public boolean podServing(String namespace, String name) {
    Pod p = podInformer.getStore().getByKey(namespace + "/" + name);
    if (p == null
        || p.getMetadata().getDeletionTimestamp() != null
        || p.getStatus() == null
        || !"Running".equals(p.getStatus().getPhase())
        || p.getStatus().getConditions() == null) {
      return false;
    }
    return p.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private void sync(Pod p) {
    String uid = p.getMetadata().getUid();
    String node = p.getSpec().getNodeName();
    if (p.getMetadata().getDeletionTimestamp() != null) {
      if (node != null && !node.isEmpty() && stopped.add(uid)) {
        stop(p);
      }
      return;
    }
    if (node == null || node.isEmpty()) {
      String s = p.getSpec().getSchedulerName();
      if (s == null || s.isEmpty() || "default-scheduler".equals(s)) {
        bind(p);
      }
      return;
    }
    if (node.startsWith("sim-") && started.add(uid)) {
      run(p);
    }
  }

  private void bind(Pod p) {
    String uid = p.getMetadata().getUid();
    if (occupant.containsValue(uid)) {
      return; // bound already; the informer shows it later
    }
    for (int i = 0; i < nodes; i++) {
      String n = nodeName(i);
      Node node = nodeInformer.getStore().getByKey(n);
      if (node == null || Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
        continue;
      }
      if (occupant.putIfAbsent(n, uid) != null) {
        continue;
      }
      try {
        client.raw(
            "/api/v1/namespaces/"
                + p.getMetadata().getNamespace()
                + "/pods/"
                + p.getMetadata().getName()
                + "/binding",
            "POST",
            Map.of(
                "apiVersion",
                "v1",
                "kind",
                "Binding",
                "metadata",
                Map.of(
                    "name", p.getMetadata().getName(),
                    "namespace", p.getMetadata().getNamespace(),
                    "uid", uid),
                "target",
                Map.of("apiVersion", "v1", "kind", "Node", "name", n)));
        return;
      } catch (KubernetesClientException e) {
        occupant.remove(n, uid);
        if (e.getCode() == 409 || e.getCode() == 404) {
          return; // bound by an earlier attempt, or gone
        }
        throw e;
      }
    }
    log.warn("no free node for pod {}", p.getMetadata().getName());
  }

  private void run(Pod p) {
    String now = ts(Instant.now());
    String container = p.getSpec().getContainers().get(0).getName();
    String image = p.getSpec().getContainers().get(0).getImage();
    String status =
        "{\"status\":{\"phase\":\"Running\",\"hostIP\":\"127.0.0.1\",\"podIP\":\"127.0.0.1\","
            + "\"startTime\":\""
            + now
            + "\",\"conditions\":["
            + cond("PodScheduled", now)
            + ","
            + cond("Initialized", now)
            + ","
            + cond("ContainersReady", now)
            + ","
            + cond("Ready", now)
            + "],"
            + "\"containerStatuses\":[{\"name\":\""
            + container
            + "\",\"image\":\""
            + image
            + "\",\"imageID\":\"sim://"
            + image
            + "\",\"ready\":true,\"started\":true,"
            + "\"restartCount\":0,\"containerID\":\"sim://"
            + p.getMetadata().getUid()
            + "\",\"state\":{\"running\":{\"startedAt\":\""
            + now
            + "\"}}}]}}";
    try {
      client
          .pods()
          .inNamespace(p.getMetadata().getNamespace())
          .withName(p.getMetadata().getName())
          .subresource("status")
          .patch(PatchContext.of(PatchType.JSON_MERGE), status);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return;
      }
      started.remove(p.getMetadata().getUid());
      throw e;
    }
    registrations.incrementAndGet();
    fake.registerNode(p.getMetadata().getName(), 64, 512_000, List.of(), "gpu:8");
  }

  private void stop(Pod p) {
    String name = p.getMetadata().getName();
    // Only this pod's own slurmd: never a successor's registration under the same name.
    if (started.contains(p.getMetadata().getUid()) && fake.knows(name)) {
      try {
        fake.slurmdLost(name);
      } catch (RuntimeException e) {
        // deleted from Slurm meanwhile: nothing to stop
      }
    }
    try {
      client
          .pods()
          .inNamespace(p.getMetadata().getNamespace())
          .withName(name)
          .withGracePeriod(0)
          .delete();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }

  private void gone(Pod p) {
    String uid = p.getMetadata().getUid();
    String node = p.getSpec().getNodeName();
    if (node != null) {
      occupant.remove(node, uid);
    }
    occupant.values().remove(uid);
    started.remove(uid);
    stopped.remove(uid);
    retryUnbound(); // a pod waiting for a free node may fit now
  }

  /**
   * Offers a free node to every pod still waiting for one. At most one pass is queued at a time (a
   * pass started later sees every change before it), so a burst of frees costs one pass per waiting
   * pod, not one per free.
   */
  private void retryUnbound() {
    if (!retryQueued.compareAndSet(false, true)) {
      return;
    }
    CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS)
        .execute(
            () -> {
              retryQueued.set(false);
              for (Pod w : podInformer.getStore().list()) {
                String n = w.getSpec().getNodeName();
                if ((n == null || n.isEmpty()) && w.getMetadata().getDeletionTimestamp() == null) {
                  onPod(w, () -> sync(w));
                }
              }
            });
  }

  private static String cond(String type, String now) {
    return "{\"type\":\"" + type + "\",\"status\":\"True\",\"lastTransitionTime\":\"" + now + "\"}";
  }

  static String ts(Instant i) {
    return DateTimeFormatter.ISO_INSTANT.format(i.truncatedTo(ChronoUnit.SECONDS));
  }

  private static void quietly(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      log.warn("simulated kubelet: {}", e.toString());
    }
  }

  private static java.util.concurrent.ThreadFactory daemon() {
    return r -> {
      Thread t = new Thread(r, "sim-kubelet");
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public void close() {
    if (leases != null) {
      leases.close();
    }
    if (podInformer != null) {
      podInformer.close();
    }
    if (nodeInformer != null) {
      nodeInformer.close();
    }
    for (ExecutorService e : stripes) {
      e.shutdownNow();
    }
  }
}
