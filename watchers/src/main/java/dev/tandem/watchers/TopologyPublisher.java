package dev.tandem.watchers;

import dev.tandem.topology.Topology;
import dev.tandem.topology.TopologyConfigMap;
import dev.tandem.topology.TopologyException;
import dev.tandem.topology.TopologyInputs;
import dev.tandem.topology.TopologyRenderer;
import dev.tandem.topology.TopologySpec;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the ConfigMap {@code tandem-topology} equal to the topology rendered from the watchers'
 * caches (slurmd pods, Kubernetes nodes) while this replica leads (docs/topology.md).
 *
 * <ol>
 *   <li>Pod and node events only call {@link #changed()}: one publish is scheduled {@code debounce}
 *       later, so a burst of events (a NodeSet scaling up, a rack relabelled) costs one rendering
 *       and at most one write.
 *   <li>Nothing is published until both caches have listed once: a topology rendered from a partial
 *       cache would leave Slurm nodes out of the fabric, and Slurm runs no job on a node no switch
 *       reaches (fail closed: unknown is not "no node").
 *   <li>A rendering equal to the last one the API server accepted costs no call. Every {@code
 *       repair} period the ConfigMap is read and rewritten if it differs (deleted or edited by
 *       hand, or a write that failed).
 *   <li>Labels that contradict each other ({@link TopologyException}) publish nothing: the last
 *       good topology stays, a WARN names the contradiction once, and {@link #problem()} says it.
 *   <li>Writes are an update guarded by the resourceVersion read just before; a conflict is retried
 *       on the next change or repair.
 * </ol>
 */
final class TopologyPublisher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TopologyPublisher.class);

  private final KubernetesClient k8s;
  private final String namespace;
  private final TopologySpec spec;
  private final Supplier<Collection<Pod>> pods;
  private final Function<String, Node> nodes;
  private final BooleanSupplier synced;
  private final WatcherMetrics metrics;
  private final Duration debounce;
  private final Duration repair;
  private final ScheduledExecutorService timer = DaemonThreads.scheduler("tandem-topology");
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private volatile Topology published;
  private volatile String problem;

  TopologyPublisher(
      KubernetesClient k8s,
      String namespace,
      TopologySpec spec,
      Supplier<Collection<Pod>> pods,
      Function<String, Node> nodes,
      BooleanSupplier synced,
      WatcherMetrics metrics,
      Duration debounce,
      Duration repair) {
    this.k8s = k8s;
    this.namespace = namespace;
    this.spec = spec;
    this.pods = pods;
    this.nodes = nodes;
    this.synced = synced;
    this.metrics = metrics;
    this.debounce = debounce;
    this.repair = repair;
  }

  /** Starts the repair timer (its first pass right away). */
  void start() {
    timer.scheduleWithFixedDelay(() -> publish(true), 0, repair.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A pod or node changed: publish after the debounce (one publish for a burst). */
  void changed() {
    if (scheduled.compareAndSet(false, true)) {
      try {
        timer.schedule(
            () -> {
              scheduled.set(false);
              publish(false);
            },
            debounce.toMillis(),
            TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        scheduled.set(false); // closed
      }
    }
  }

  /** The last topology the API server holds as far as this publisher knows, or null. */
  Topology published() {
    return published;
  }

  /** Why the topology is not current (contradicting labels), or null. */
  String problem() {
    return problem;
  }

  private void publish(boolean readBack) {
    try {
      if (!synced.getAsBoolean()) {
        return; // the caches' first listing triggers a change, and the repair timer comes back
      }
      Topology t;
      try {
        t = TopologyRenderer.render(spec, TopologyInputs.of(pods.get(), nodes));
      } catch (TopologyException e) {
        if (!Objects.equals(problem, e.getMessage())) {
          log.warn("topology not published, the node labels contradict: {}", e.getMessage());
        }
        problem = e.getMessage();
        outcome("refused");
        return;
      }
      problem = null;
      if (!readBack && t.equals(published)) {
        return;
      }
      write(t);
    } catch (KubernetesClientException e) {
      published = null; // unknown now: the next change or repair reads and writes again
      outcome("failed");
      log.warn(
          "writing ConfigMap {}/{} failed: {}", namespace, TopologyConfigMap.NAME, e.toString());
    } catch (RuntimeException e) {
      published = null;
      outcome("failed");
      log.warn("publishing the topology failed: {}", e.toString());
    }
  }

  private void write(Topology t) {
    var resource = k8s.configMaps().inNamespace(namespace).withName(TopologyConfigMap.NAME);
    ConfigMap current = resource.get();
    if (current != null && TopologyConfigMap.holds(current, t)) {
      published = t;
      outcome("unchanged");
      return;
    }
    ConfigMap next = TopologyConfigMap.of(namespace, t);
    if (current == null) {
      k8s.configMaps().inNamespace(namespace).resource(next).create();
    } else {
      next.getMetadata().setResourceVersion(current.getMetadata().getResourceVersion());
      if (current.getMetadata().getLabels() != null) {
        var labels = new java.util.HashMap<>(current.getMetadata().getLabels());
        labels.putAll(next.getMetadata().getLabels());
        next.getMetadata().setLabels(labels);
      }
      k8s.configMaps().inNamespace(namespace).resource(next).update();
    }
    published = t;
    outcome("written");
    log.info("topology published to ConfigMap {}/{} ({})", namespace, TopologyConfigMap.NAME, spec);
  }

  private void outcome(String outcome) {
    metrics.topologyPublished(outcome);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
