package dev.tandem.watchers;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.NodeCommand;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns Kubernetes node health into Slurm drains of the slurmd pods on that node.
 *
 * <ul>
 *   <li>Cordon ({@code spec.unschedulable}) → {@code drain} with owner {@code k8s-cordon} and the
 *       reason from the annotation {@code tandem.dev/cordon-reason} (or a default); uncordon →
 *       {@code undrain} of that owner only, so other drains stay.
 *   <li>A configured condition in a bad state ({@code Ready} not True, or e.g. {@code GpuUnhealthy}
 *       True) → {@code drain} with owner {@code k8s-unhealthy} and {@code <condition>: <message>};
 *       healthy again → {@code undrain} of that owner.
 * </ul>
 *
 * <p>What was last asked per (pod, owner) is remembered, so unchanged nodes cost nothing. What
 * happened while no watcher ran is unknown, so:
 *
 * <ol>
 *   <li>After the node informer's first listing (the pod cache is synced before it starts), one
 *       pass sends the full desired state of every pod, undrains of owners that hold nothing
 *       included; node workflows ignore those silently.
 *   <li>A pod first seen later (created since, or missed because the pod cache was late) gets an
 *       undrain only on the informer's periodic resync, and only once: a new pod holds nothing, so
 *       the common case costs no signal, and a missed one is repaired within a resync period.
 *   <li>Every change of a node's cordon or conditions sends what changed, as it happens.
 * </ol>
 */
public final class K8sNodeWatcher implements AutoCloseable {
  /** Annotation on a Kubernetes Node that says why it was cordoned. */
  public static final String CORDON_REASON = Names.PREFIX + "cordon-reason";

  private final KubernetesClient client;
  private final PodWatcher pods;
  private final Coalescer coalescer;
  private final WorkflowSignals signals;
  private final WatcherMetrics metrics;
  private final Set<String> unhealthyConditions;
  private final Duration resync;
  private final Map<String, String> lastAsked = new ConcurrentHashMap<>();
  private volatile boolean primed;
  private SharedIndexInformer<Node> informer;

  /** How a pass treats a (pod, owner) whose state this watcher has not asked for yet. */
  private enum Pass {
    /** A change: send drains; an undrain only if a drain was asked before. */
    CHANGE,
    /** A periodic resync: also send the first undrain of a pod never asked about. */
    RESYNC,
    /** The first pass after start: send everything. */
    FULL
  }

  /**
   * @param unhealthyConditions condition types that drain when True (Ready is always watched and
   *     drains when not True)
   */
  public K8sNodeWatcher(
      KubernetesClient client,
      PodWatcher pods,
      Coalescer coalescer,
      WorkflowSignals signals,
      WatcherMetrics metrics,
      Set<String> unhealthyConditions,
      Duration resync) {
    this.client = client;
    this.pods = pods;
    this.coalescer = coalescer;
    this.signals = signals;
    this.metrics = metrics;
    this.unhealthyConditions = Set.copyOf(unhealthyConditions);
    this.resync = resync;
  }

  public void start() {
    informer =
        client
            .nodes()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Node n) {
                    metrics.event("node", "add");
                    if (primed) {
                      apply(n, Pass.FULL); // a node added later: its pods are new too
                    }
                  }

                  @Override
                  public void onUpdate(Node old, Node n) {
                    metrics.event("node", "update");
                    boolean resync =
                        Objects.equals(
                            old.getMetadata().getResourceVersion(),
                            n.getMetadata().getResourceVersion());
                    apply(n, resync ? Pass.RESYNC : Pass.CHANGE);
                  }

                  @Override
                  public void onDelete(Node n, boolean unknownFinalState) {
                    metrics.event("node", "delete");
                    // The pods on it are lost too; the pod watcher and node workflows take over.
                  }
                },
                resync.toMillis());
    // inform() returns once the first listing is in the store: now the full pass.
    primed = true;
    for (Node n : informer.getStore().list()) {
      apply(n, Pass.FULL);
    }
  }

  /** A pod appeared on (or moved to) a node: give it that node's drains. */
  public void podChanged(Pod pod) {
    if (informer == null || pod.getSpec() == null || pod.getSpec().getNodeName() == null) {
      return;
    }
    Node n = informer.getStore().getByKey(pod.getSpec().getNodeName());
    if (n != null) {
      applyTo(pod, n, Pass.CHANGE);
    }
  }

  private void apply(Node n, Pass pass) {
    for (Pod pod : pods.podsOn(n.getMetadata().getName())) {
      applyTo(pod, n, pass);
    }
  }

  private void applyTo(Pod pod, Node n, Pass pass) {
    String cordon = cordonReason(n);
    String unhealthy = unhealthyReason(n);
    ask(pod, DrainCause.K8S_CORDON, cordon, pass);
    ask(pod, DrainCause.K8S_UNHEALTHY, unhealthy, pass);
  }

  /** Sends drain (reason not null) or undrain for one owner, if the pass calls for it. */
  private void ask(Pod pod, DrainCause owner, String reason, Pass pass) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    String key = ns + "/" + name + ":" + owner.label();
    String desired = reason == null ? "-" : reason;
    String before = lastAsked.put(key, desired);
    if (pass != Pass.FULL && desired.equals(before)) {
      return;
    }
    if (before == null && reason == null && pass == Pass.CHANGE) {
      lastAsked.remove(key); // not asked yet: the next resync sends it once
      return;
    }
    String signal = reason == null ? Names.SIGNAL_UNDRAIN : Names.SIGNAL_DRAIN;
    NodeCommand cmd = NodeCommand.of(owner, reason == null ? "cleared in Kubernetes" : reason);
    Instant seen = Instant.now();
    coalescer.submit(
        key,
        () -> {
          boolean ok = signals.node(ns, name, signal, cmd);
          metrics.signal(signal, ok ? "sent" : "not-running");
          metrics.lag("node", Duration.between(seen, Instant.now()));
        });
  }

  static String cordonReason(Node n) {
    if (n.getSpec() == null || !Boolean.TRUE.equals(n.getSpec().getUnschedulable())) {
      return null;
    }
    Map<String, String> a = n.getMetadata().getAnnotations();
    String why = a == null ? null : a.get(CORDON_REASON);
    return why == null || why.isBlank()
        ? "node " + n.getMetadata().getName() + " cordoned in Kubernetes"
        : why.trim();
  }

  /** {@code <condition>: <message>} for every bad condition, or null when healthy. */
  String unhealthyReason(Node n) {
    if (n.getStatus() == null || n.getStatus().getConditions() == null) {
      return null;
    }
    List<String> bad = new ArrayList<>();
    for (NodeCondition c : n.getStatus().getConditions()) {
      boolean isBad =
          "Ready".equals(c.getType())
              ? !"True".equals(c.getStatus())
              : unhealthyConditions.contains(c.getType()) && "True".equals(c.getStatus());
      if (isBad) {
        String msg =
            c.getMessage() == null || c.getMessage().isBlank() ? c.getReason() : c.getMessage();
        bad.add(c.getType() + "=" + c.getStatus() + (msg == null ? "" : ": " + msg));
      }
    }
    return bad.isEmpty() ? null : String.join("; ", bad);
  }

  /** False once the informer has stopped for good (the supervisor then restarts it). */
  public boolean running() {
    return informer != null && informer.isRunning();
  }

  @Override
  public void close() {
    if (informer != null) {
      informer.close();
      informer = null;
    }
  }
}
