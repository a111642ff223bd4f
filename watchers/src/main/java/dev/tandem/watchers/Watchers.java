package dev.tandem.watchers;

import dev.tandem.slurm.SlurmClient;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All watchers of one process, run only while this replica holds the leader lease (every replica
 * runs Temporal workers; only one watches, so signals are not sent twice over).
 *
 * <p>A {@link LeaderLoop} competes for the lease for as long as the process runs; each time this
 * replica leads, a fresh {@link Watching} term runs. A supervisor restarts any informer that
 * stopped for good (watch errors are retried by the informers themselves). {@link #problem()} says
 * what is dead — an informer the supervisor could not restart within a bound, the Slurm poller
 * thread, the coalescer, the health reporter, the election loop — for {@code /healthz}.
 */
public final class Watchers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Watchers.class);

  /**
   * The watchers' Lease and its timings (client-go's defaults: 15 s, 10 s, 2 s).
   *
   * @param duration how long a lease holds without renewal; others may take it after that
   * @param renewDeadline a leader that could not renew for this long stops watching
   * @param retryPeriod how often candidates try to acquire, and leaders to renew
   */
  public record Lease(
      String namespace,
      String name,
      String identity,
      Duration duration,
      Duration renewDeadline,
      Duration retryPeriod) {
    public Lease {
      // fabric8's own checks, with messages that name the settings.
      if (duration.compareTo(renewDeadline) <= 0) {
        throw new IllegalArgumentException(
            "the lease duration (" + duration + ") must be longer than the renew deadline");
      }
      if (renewDeadline.toMillis() <= retryPeriod.toMillis() * 22 / 10 + 1) {
        throw new IllegalArgumentException(
            "the renew deadline ("
                + renewDeadline
                + ") must be longer than 2.2 times the retry period ("
                + retryPeriod
                + ")");
      }
    }

    public static Lease defaults(String namespace, String name, String identity) {
      return new Lease(
          namespace,
          name,
          identity,
          Duration.ofSeconds(15),
          Duration.ofSeconds(10),
          Duration.ofSeconds(2));
    }
  }

  /**
   * @param kubernetesProbe how often the Kubernetes API is probed (also the probe's timeout)
   * @param resend how often the current reachability view is sent again to every NodeSet
   */
  public record Reachability(Duration kubernetesProbe, Duration resend) {
    public static Reachability defaults() {
      return new Reachability(Duration.ofSeconds(5), Duration.ofSeconds(60));
    }
  }

  /**
   * @param informerResync how often informers replay their cache (repairs missed signals)
   * @param slurmInterval Slurm poll interval
   * @param slurmFullResync how often the poller lists and sends everything
   * @param unhealthyConditions Kubernetes node conditions that drain when True
   * @param signalThreads threads sending signals
   * @param lease the leader Lease (namespace, name, this replica's identity, timings)
   * @param reachability how Slurm and Kubernetes reachability is reported to NodeSets
   * @param clusterBudget {@code TANDEM_CLUSTER_BUDGET}: at most this many Kubernetes nodes out
   *     through automatic actions cluster-wide, or 0 for a tenth of those hosting slurmd pods (at
   *     least 1)
   */
  public record Config(
      Duration informerResync,
      Duration slurmInterval,
      Duration slurmPendingInterval,
      Duration slurmFullResync,
      Set<String> unhealthyConditions,
      int signalThreads,
      Lease lease,
      Reachability reachability,
      int clusterBudget) {}

  /**
   * The topology the watchers publish (docs/topology.md).
   *
   * @param spec {@code TANDEM_TOPOLOGY}; off publishes nothing
   * @param namespace where the ConfigMap {@code tandem-topology} lives (the worker's namespace)
   * @param debounce how long after a pod or node change the topology is rendered
   * @param repair how often the ConfigMap is read back and repaired
   */
  public record TopologyConfig(
      dev.tandem.topology.TopologySpec spec, String namespace, Duration debounce, Duration repair) {
    public static final TopologyConfig OFF =
        new TopologyConfig(
            dev.tandem.topology.TopologySpec.OFF,
            "default",
            Duration.ofSeconds(2),
            Duration.ofMinutes(1));
  }

  private final KubernetesClient k8s;
  private final SlurmClient slurm;
  private final WorkflowSignals signals;
  private final WatcherMetrics metrics;
  private final Config cfg;
  private final Clock clock;
  private final ScheduledExecutorService supervisor =
      DaemonThreads.scheduler("tandem-watchers-supervisor");

  private Duration superviseEvery = Duration.ofSeconds(10);
  private Duration deadAfter = Duration.ofSeconds(60);
  private final KubernetesAccess access;
  private volatile Watching watching;
  private volatile TopologyConfig topology = TopologyConfig.OFF;
  private volatile LeaderLoop election;
  private volatile long lastSuperviseNanos;
  private boolean supervised;

  public Watchers(
      KubernetesClient k8s,
      SlurmClient slurm,
      WorkflowSignals signals,
      WatcherMetrics metrics,
      Config cfg,
      Clock clock) {
    this.k8s = k8s;
    this.slurm = slurm;
    this.signals = signals;
    this.metrics = metrics;
    this.cfg = cfg;
    this.clock = clock;
    Duration probe = cfg.reachability().kubernetesProbe();
    this.access = new KubernetesAccess(new KubernetesProbe(k8s, probe), probe, metrics);
  }

  /** For tests: how often the supervisor looks, and how long an informer may stay down. */
  synchronized Watchers supervision(Duration every, Duration dead) {
    this.superviseEvery = every;
    this.deadAfter = dead;
    return this;
  }

  /** What topology to publish from the next term of watching on (off by default). */
  public Watchers topology(TopologyConfig t) {
    this.topology = t;
    return this;
  }

  /** Competes for the lease, again after every loss, until closed; watches while it holds it. */
  public synchronized void startWithLeaderElection() {
    if (election != null) {
      return;
    }
    access.start();
    election =
        new LeaderLoop(
            k8s,
            cfg.lease(),
            metrics,
            new LeaderLoop.Target() {
              @Override
              public void startLeading() {
                startWatching();
              }

              @Override
              public void stopLeading(String why) {
                stopWatching();
              }
            });
    election.start();
  }

  /** Starts watching now, without an election (single replica, tests, {@code tandem dev}). */
  public synchronized void startWatching() {
    if (watching != null) {
      return;
    }
    metrics.leader(true);
    log.info("{} starts watching", cfg.lease().identity());
    access.start();
    Watching w = new Watching(k8s, slurm, signals, metrics, cfg, clock, topology, access);
    watching = w;
    if (!supervised) {
      supervised = true;
      lastSuperviseNanos = System.nanoTime();
      supervisor.scheduleWithFixedDelay(
          this::supervise,
          superviseEvery.toMillis(),
          superviseEvery.toMillis(),
          TimeUnit.MILLISECONDS);
    }
    w.start();
  }

  private void supervise() {
    lastSuperviseNanos = System.nanoTime();
    try {
      Watching w = watching;
      if (w != null) {
        w.supervise();
      }
    } catch (RuntimeException e) {
      log.warn("watchers' supervisor: {}", e.toString());
    }
  }

  /** Stops watching (lost the lease, or shutting down). Workers keep running. */
  public synchronized void stopWatching() {
    Watching w = watching;
    if (w == null) {
      return;
    }
    watching = null;
    metrics.leader(false);
    log.info("{} stops watching", cfg.lease().identity());
    w.close();
  }

  /**
   * Null unless the Kubernetes API refused this replica's last check (401 or 403), leader or not:
   * then what it answered, for {@code /readyz} ({@link KubernetesAccess}).
   */
  public String kubernetesRefused() {
    return access.refused();
  }

  public boolean leading() {
    return watching != null;
  }

  /**
   * Null when healthy; otherwise what is dead: while this replica watches, a watcher (see {@link
   * Watching#problems}) or the supervisor; and, with leader election, the election loop.
   */
  public String problem() {
    List<String> out = new ArrayList<>();
    LeaderLoop e = election;
    String p = e == null ? null : e.problem();
    if (p != null) {
      out.add(p);
    }
    Watching w = watching;
    if (w != null) {
      long quiet = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastSuperviseNanos);
      if (supervisor.isShutdown() || quiet > 3 * superviseEvery.toMillis() + 5000) {
        out.add("the watchers' supervisor stopped (last ran " + quiet / 1000 + "s ago)");
      }
      out.addAll(w.problems(deadAfter));
    }
    return out.isEmpty() ? null : String.join("; ", out);
  }

  /** Everything the watchers index, for tests: the pod watcher (null while not watching). */
  public PodWatcher pods() {
    Watching w = watching;
    return w == null ? null : w.pods;
  }

  public SlurmPoller poller() {
    Watching w = watching;
    return w == null ? null : w.poller;
  }

  public Coalescer coalescer() {
    Watching w = watching;
    return w == null ? null : w.coalescer;
  }

  /** The current term, for tests (null while not watching). */
  Watching watching() {
    return watching;
  }

  @Override
  public void close() {
    LeaderLoop e = election;
    if (e != null) {
      e.close(); // stops watching through its target, and releases the lease
    }
    stopWatching();
    supervisor.shutdownNow();
    access.close();
  }
}
