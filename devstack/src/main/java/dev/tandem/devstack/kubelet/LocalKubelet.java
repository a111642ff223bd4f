package dev.tandem.devstack.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A kubelet for the local dev stack on the real control plane: registers the nodes {@code
 * local-1..N} and renews their Leases ({@link NodeLeases}), and runs the pods bound to them (by
 * kube-scheduler, or by Tandem for {@code tandem-slurm} pods) as local processes (see {@link
 * PodWorker}). The not-ready taint and lost nodes are the node lifecycle controller's. Informer
 * callbacks only mark pods dirty; one sync thread does everything else, so callbacks never block.
 * On start it adopts pods already bound to its nodes; on close (and at JVM shutdown) it stops every
 * process it started.
 */
public final class LocalKubelet implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LocalKubelet.class);

  /** How long close waits for SIGTERMed processes before SIGKILL. */
  static final Duration CLOSE_GRACE = Duration.ofSeconds(10);

  private final KubernetesClient client;
  private final KubeletConfig config;
  private final Set<String> myNodes = new LinkedHashSet<>();
  private final ScheduledExecutorService loop;
  private final Set<String> dirty = new LinkedHashSet<>();
  private final Map<String, PodState> states = new HashMap<>();

  private final List<PodState> stopping = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final PodWorker worker;
  private final NodeLeases leases;
  private final AdmissionGate admission;
  private volatile KubeletLogs logs;
  private final Thread shutdownHook;
  private volatile SharedIndexInformer<Pod> pods;
  private volatile SharedIndexInformer<Node> nodes;
  private volatile boolean closed;
  private Runnable beforeStop = () -> {};

  /** The last reboot token carried out per node: the informer may not show the echo yet. */
  private final Map<String, String> rebooted = new HashMap<>();

  private LocalKubelet(KubernetesClient client, KubeletConfig config) {
    this.client = client;
    this.config = config;
    for (int i = 1; i <= config.nodes(); i++) {
      myNodes.add(config.nodeName(i));
    }
    loop =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "local-kubelet");
              t.setDaemon(true);
              return t;
            });
    leases = new NodeLeases(client, List.copyOf(myNodes), NodeLeases.RENEW);
    worker =
        new PodWorker(client, config, new SlurmSetup(config.slurmEnvFile()), this::enqueueLater);
    admission =
        new AdmissionGate(
            worker,
            name -> nodes.getStore().getByKey(name),
            () -> pods.getStore().list(),
            key -> {
              synchronized (states) {
                PodState st = states.get(key);
                return st == null ? null : st.uid;
              }
            });
    shutdownHook = new Thread(this::stopAllProcesses, "local-kubelet-shutdown");
  }

  /** Registers the nodes, starts the informers and the sync loop. */
  public static LocalKubelet start(KubernetesClient client, KubeletConfig config) {
    LocalKubelet k = new LocalKubelet(client, config);
    try {
      k.logs = KubeletLogs.start(config, k::containerRuns);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("local kubelet: its log endpoint did not start", e);
    }
    LocalNodes.register(client, config, k.logs.port());
    // Fields first, then start: informer callbacks may fire before start() returns.
    k.nodes = client.nodes().runnableInformer(0);
    k.pods = client.pods().inAnyNamespace().runnableInformer(0);
    k.nodes.addEventHandler(k.handler(n -> k.enqueueNode(n.getMetadata().getName())));
    k.pods.addEventHandler(k.handler(p -> k.enqueue(Cache.metaNamespaceKeyFunc(p))));
    try {
      k.nodes.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
      k.pods.start().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      k.close();
      throw new IllegalStateException("local kubelet: interrupted while starting", e);
    } catch (ExecutionException | TimeoutException e) {
      k.close();
      throw new IllegalStateException("local kubelet: informers did not start: " + e, e);
    }
    Runtime.getRuntime().addShutdownHook(k.shutdownHook);
    k.leases.start();
    long every = config.resync().toMillis();
    k.loop.scheduleWithFixedDelay(k::resync, every, every, TimeUnit.MILLISECONDS);
    k.enqueueAll();
    log.info("local kubelet started with nodes {}", k.myNodes);
    return k;
  }

  /** Whether the container of pod {@code <ns>/<name>} runs now (a log follow ends when not). */
  private boolean containerRuns(String key) {
    synchronized (states) {
      PodState s = states.get(key);
      return s != null && s.running();
    }
  }

  /**
   * Registers the nodes again, as a kubelet does when it restarts: a Node deleted meanwhile comes
   * back (a kubelet that keeps running never re-creates its Node).
   */
  public void registerNodes() {
    LocalNodes.register(client, config, logs.port());
  }

  public Set<String> nodeNames() {
    return Set.copyOf(myNodes);
  }

  private <T> ResourceEventHandler<T> handler(java.util.function.Consumer<T> onChange) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        onChange.accept(obj);
      }

      @Override
      public void onUpdate(T oldObj, T newObj) {
        onChange.accept(newObj);
      }

      @Override
      public void onDelete(T obj, boolean deletedFinalStateUnknown) {
        onChange.accept(obj);
      }
    };
  }

  private void enqueue(String key) {
    boolean schedule;
    synchronized (dirty) {
      schedule = dirty.isEmpty();
      dirty.add(key);
    }
    if (schedule) {
      submit(this::drain, Duration.ZERO);
    }
  }

  private void enqueueLater(String key, Duration delay) {
    if (delay.isZero()) {
      enqueue(key);
    } else {
      submit(() -> enqueue(key), delay);
    }
  }

  private void submit(Runnable r, Duration delay) {
    if (closed) {
      return;
    }
    try {
      loop.schedule(r, delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closing
    }
  }

  private void enqueueAll() {
    if (pods != null) {
      pods.getStore().listKeys().forEach(this::enqueue);
    }
    synchronized (states) {
      states.keySet().forEach(this::enqueue);
    }
  }

  /** A reboot asked for on one of this kubelet's nodes, carried out on the sync thread. */
  private void enqueueNode(String name) {
    if (myNodes.contains(name)) {
      submit(
          () -> {
            try {
              rebootIfAsked(name);
            } catch (RuntimeException e) {
              log.warn("reboot of node {} failed (retried on resync): {}", name, e.toString());
            }
          },
          Duration.ZERO);
    }
  }

  /**
   * Carries out a reboot asked for on the node ({@link NodeReboots}), on the sync thread: every
   * process of the node's pods is stopped (SIGTERM, SIGKILL after the longest grace allowed), each
   * pod starts again with a restart counted, then the node reports the reboot.
   */
  private void rebootIfAsked(String name) {
    String token = NodeReboots.pending(nodes.getStore().getByKey(name));
    if (token == null || token.equals(rebooted.get(name))) {
      return;
    }
    log.info("node {}: reboot requested (token {}): restarting every pod on it", name, token);
    List<Pod> onNode = new ArrayList<>();
    List<PodState> podStates = new ArrayList<>();
    for (Pod p : pods.getStore().list()) {
      if (!name.equals(p.getSpec().getNodeName())) {
        continue;
      }
      PodState s;
      synchronized (states) {
        s = states.get(Cache.metaNamespaceKeyFunc(p));
      }
      if (s != null && s.uid.equals(p.getMetadata().getUid())) {
        onNode.add(p);
        podStates.add(s);
      }
    }
    NodeReboots.stopAll(alive(podStates), config.maxGrace());
    for (int i = 0; i < onNode.size(); i++) {
      worker.reboot(onNode.get(i), podStates.get(i));
    }
    NodeReboots.markRebooted(client, name, token);
    rebooted.put(name, token);
    log.info("node {}: rebooted (token {}), {} pod(s) restarted", name, token, onNode.size());
  }

  private void resync() {
    enqueueAll();
    myNodes.forEach(this::enqueueNode);
    submit(this::drainStopping, Duration.ZERO);
  }

  /** Runs on the loop thread: syncs every dirty pod once. */
  private void drain() {
    List<String> keys;
    synchronized (dirty) {
      keys = new ArrayList<>(dirty);
      dirty.clear();
    }
    for (String key : keys) {
      if (closed) {
        return;
      }
      try {
        sync(key);
      } catch (RuntimeException e) {
        log.warn("sync of pod {} failed (retried on the next resync): {}", key, e.toString());
      }
    }
    drainStopping();
  }

  private void sync(String key) {
    Pod pod = pods.getStore().getByKey(key);
    PodState s;
    synchronized (states) {
      s = states.get(key);
    }
    if (s != null && (pod == null || !s.uid.equals(pod.getMetadata().getUid()) || !mine(pod))) {
      // Gone, replaced by a new pod of the same name, or not ours any more: stop it aside.
      forget(key, s, pod == null ? Duration.ofSeconds(30) : PodWorker.graceOf(pod));
      s = null;
    }
    if (pod == null) {
      admission.forget(key);
      return;
    }
    boolean deleting = pod.getMetadata().getDeletionTimestamp() != null;
    if (!deleting && admission.wasRejected(key, pod)) {
      return;
    }
    if (!mine(pod)) {
      return;
    }
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    if (s == null
        && ("Succeeded".equals(phase) || "Failed".equals(phase))
        && pod.getMetadata().getDeletionTimestamp() == null) {
      return; // finished before we saw it
    }
    if (s == null && !deleting && "Pending".equals(Objects.toString(phase, "Pending"))) {
      // Not admitted yet (a Running pod was admitted by this kubelet before a restart).
      if (!admission.admit(key, pod)) {
        return;
      }
    }
    if (s == null) {
      s = worker.adopt(pod);
      synchronized (states) {
        states.put(key, s);
      }
    }
    worker.sync(pod, s);
  }

  private boolean mine(Pod pod) {
    String n = pod.getSpec().getNodeName();
    return n != null && myNodes.contains(n);
  }

  private void forget(String key, PodState s, Duration grace) {
    synchronized (states) {
      states.remove(key);
    }
    if (worker.stop(s, grace)) {
      stopping.add(s);
    }
  }

  private void drainStopping() {
    stopping.removeIf(s -> !worker.stop(s, Duration.ZERO));
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    leases.close();
    if (logs != null) {
      logs.close();
    }
    if (pods != null) {
      pods.close();
    }
    if (nodes != null) {
      nodes.close();
    }
    try {
      loop.submit(() -> {}).get(CLOSE_GRACE.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      log.warn("kubelet sync loop did not settle: {}", e.toString());
    }
    loop.shutdownNow();
    stopAllProcesses();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // the JVM is already shutting down; the hook runs anyway
    }
    log.info("local kubelet stopped");
  }

  /**
   * Runs once before the processes are stopped, on {@link #close()} or at JVM exit, whichever comes
   * first (the dev stack ends the Slurm jobs on its slurmd pods this way: a slurmd stopped under a
   * job leaves the job's processes behind).
   */
  public synchronized void beforeStop(Runnable r) {
    beforeStop = r;
  }

  /**
   * The {@link #beforeStop} action, then SIGTERM to every process started, SIGKILL to those still
   * alive after {@link #CLOSE_GRACE}. Synchronized: at JVM exit the shutdown hook and a close may
   * run at once, and neither may stop a process before the action is done.
   */
  private synchronized void stopAllProcesses() {
    Runnable before = beforeStop;
    beforeStop = () -> {};
    try {
      before.run();
    } catch (RuntimeException e) {
      log.warn("before stopping the processes: {}", e.toString());
    }
    List<RunningProcess> procs;
    synchronized (states) {
      procs = new ArrayList<>(alive(states.values()));
    }
    procs.addAll(alive(stopping));
    procs.forEach(RunningProcess::terminate);
    CompletableFuture<?> all =
        CompletableFuture.allOf(
            procs.stream().map(RunningProcess::exit).toArray(CompletableFuture[]::new));
    try {
      all.get(CLOSE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      procs.stream().filter(RunningProcess::isAlive).forEach(RunningProcess::kill);
    } catch (Exception e) {
      procs.forEach(RunningProcess::kill);
    }
    if (!procs.isEmpty()) {
      log.info("stopped {} process(es)", procs.size());
    }
  }

  /** Processes of every state, for close. */
  private static List<RunningProcess> alive(Iterable<PodState> states) {
    List<RunningProcess> out = new ArrayList<>();
    for (PodState s : states) {
      if (s.process != null && s.process.isAlive()) {
        out.add(s.process);
      }
    }
    return out;
  }
}
