package dev.tandem.watchers;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.ClusterHealth;
import dev.tandem.workflows.model.NodeSetRef;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells every NodeSet workflow whether Slurm and Kubernetes can be reached ({@code clusterHealth}
 * signals), so that an outage shows on the NodeSet within seconds of the watchers seeing it.
 *
 * <ol>
 *   <li>The Slurm poller reports the outcome of every poll; every {@code probeInterval} the last
 *       outcome of the {@link KubernetesAccess} probe is reported. A report that flips a
 *       component's state (or is its first) is sent at once to every NodeSet in the NodeSet
 *       informer's cache.
 *   <li>Every {@code resend} the current view of each component is sent to every known NodeSet
 *       again: a lost signal is repaired, and the workflow can tell a silent watcher (no report for
 *       a while: Unknown) from a healthy one.
 *   <li>A NodeSet whose workflow has just been started by a spec signal and has not had the current
 *       view yet gets it right away, not at the next resend.
 *   <li>Signals go through the coalescer, keyed per NodeSet and component, and carry the view
 *       current when they are sent (latest wins). They are plain signals: a NodeSet whose workflow
 *       does not run is skipped, never started.
 * </ol>
 */
public final class ClusterHealthReporter implements ReachabilityListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ClusterHealthReporter.class);

  private final Supplier<List<NodeSetRef>> nodeSets;
  private final Coalescer coalescer;
  private final WorkflowSignals signals;
  private final WatcherMetrics metrics;
  private final Clock clock;
  private final Duration resend;
  private final Duration probeInterval;
  private final Supplier<KubernetesProbe.Outcome> kubernetes;
  private final Map<String, ClusterHealth> current = new ConcurrentHashMap<>();
  private final Set<NodeSetRef> informed = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService timer = DaemonThreads.scheduler("tandem-cluster-health");
  private volatile long lastTickNanos = System.nanoTime();
  private volatile boolean closed;

  /**
   * @param nodeSets the NodeSets to tell (the NodeSet informer's cache)
   * @param kubernetes the latest outcome of the Kubernetes probe ({@link KubernetesAccess#latest}),
   *     null before the first; or null to not report Kubernetes
   * @param probeInterval how often the outcome is read
   * @param resend how often the current view is sent again
   */
  public ClusterHealthReporter(
      Supplier<List<NodeSetRef>> nodeSets,
      Coalescer coalescer,
      WorkflowSignals signals,
      WatcherMetrics metrics,
      Clock clock,
      Supplier<KubernetesProbe.Outcome> kubernetes,
      Duration probeInterval,
      Duration resend) {
    this.nodeSets = nodeSets;
    this.coalescer = coalescer;
    this.signals = signals;
    this.metrics = metrics;
    this.clock = clock;
    this.kubernetes = kubernetes;
    this.probeInterval = probeInterval;
    this.resend = resend;
  }

  public void start() {
    if (kubernetes != null) {
      timer.scheduleWithFixedDelay(
          () -> tick(this::probeOnce), 0, probeInterval.toMillis(), TimeUnit.MILLISECONDS);
    }
    timer.scheduleAtFixedRate(
        () -> tick(this::resendAll), resend.toMillis(), resend.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Runs a timer task; a failure is logged and never cancels the schedule. */
  private void tick(Runnable r) {
    lastTickNanos = System.nanoTime();
    try {
      r.run();
    } catch (RuntimeException e) {
      log.warn("cluster health reporting: {}", e.toString());
    }
  }

  private void probeOnce() {
    KubernetesProbe.Outcome o = kubernetes.get();
    if (o != null) {
      observed(
          ClusterHealth.KUBERNETES, o.ok(), o.ok() ? "the Kubernetes API answers" : o.problem());
    }
  }

  @Override
  public void observed(String component, boolean reachable, String message) {
    Instant now = clock.instant();
    boolean changed;
    synchronized (current) {
      ClusterHealth before = current.get(component);
      changed = before == null || before.reachable() != reachable;
      Instant since = changed ? now : before.since();
      current.put(component, new ClusterHealth(component, reachable, message, since, now));
    }
    if (changed && !closed) {
      if (reachable) {
        log.info("{} reachable: {}", component, message);
      } else {
        log.warn("{} unreachable: {}", component, message);
      }
      informed.clear();
      sendAll(component);
    }
  }

  /** The last report per component. */
  public Map<String, ClusterHealth> current() {
    return Map.copyOf(current);
  }

  /**
   * A NodeSet's workflow now runs (a spec signal was accepted): give it the view if it lacks it.
   */
  public void nodeSetRunning(NodeSetRef ref) {
    if (closed || informed.contains(ref)) {
      return;
    }
    for (String component : current.keySet()) {
      sendTo(ref, component);
    }
  }

  void resendAll() {
    for (String component : current.keySet()) {
      sendAll(component);
    }
  }

  private void sendAll(String component) {
    for (NodeSetRef ref : nodeSets.get()) {
      sendTo(ref, component);
    }
  }

  private void sendTo(NodeSetRef ref, String component) {
    coalescer.submit(
        ref.workflowId() + ":health:" + component,
        () -> {
          ClusterHealth h = current.get(component);
          boolean ok = signals.clusterHealth(ref, h);
          if (ok) {
            informed.add(ref);
          }
          metrics.signal(Names.SIGNAL_CLUSTER_HEALTH, ok ? "sent" : "not-running");
        });
  }

  /** Null while the timer runs; otherwise why not (for {@code /healthz}). */
  public String problem() {
    if (closed) {
      return null;
    }
    long quiet = Duration.ofNanos(System.nanoTime() - lastTickNanos).toMillis();
    // The timer runs at least every probe interval, or every resend.
    long bound = kubernetes == null ? 3 * resend.toMillis() : 3 * probeInterval.toMillis() + 1000;
    if (timer.isTerminated() || quiet > bound) {
      return "the cluster health reporter stopped (last ran " + quiet / 1000 + "s ago)";
    }
    return null;
  }

  @Override
  public void close() {
    closed = true;
    timer.shutdownNow();
  }
}
