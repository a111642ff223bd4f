package dev.tandem.watchers;

import dev.tandem.slurm.SlurmClient;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All watchers of one process, run only while this replica holds the leader lease (every replica
 * runs Temporal workers; only one watches, so signals are not sent twice over).
 *
 * <p>Start order matters: the pod watcher's cache is the index the others look pods up in, so it
 * starts and syncs first. A supervisor restarts any informer that stopped for good (watch errors
 * are retried by the informers themselves).
 */
public final class Watchers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Watchers.class);

  /**
   * @param informerResync how often informers replay their cache (repairs missed signals)
   * @param slurmInterval Slurm poll interval
   * @param slurmFullResync how often the poller lists and sends everything
   * @param unhealthyConditions Kubernetes node conditions that drain when True
   * @param signalThreads threads sending signals
   * @param leaseNamespace namespace of the leader Lease
   * @param leaseName name of the leader Lease
   * @param identity this replica's identity (pod name)
   */
  public record Config(
      Duration informerResync,
      Duration slurmInterval,
      Duration slurmFullResync,
      Set<String> unhealthyConditions,
      int signalThreads,
      String leaseNamespace,
      String leaseName,
      String identity) {}

  private final KubernetesClient k8s;
  private final SlurmClient slurm;
  private final WorkflowSignals signals;
  private final WatcherMetrics metrics;
  private final Config cfg;
  private final Clock clock;
  private final ScheduledExecutorService supervisor =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "tandem-watchers-supervisor");
            t.setDaemon(true);
            return t;
          });

  private Coalescer coalescer;
  private PodWatcher pods;
  private K8sNodeWatcher nodes;
  private NodeSetWatcher nodeSets;
  private SlurmPoller poller;
  private CompletableFuture<?> election;
  private volatile boolean leading;
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
  }

  /** Competes for the lease; watches while it holds it. Returns at once. */
  public void startWithLeaderElection() {
    LeaderElector elector =
        k8s.leaderElector()
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName("tandem-watchers")
                    .withLock(new LeaseLock(cfg.leaseNamespace(), cfg.leaseName(), cfg.identity()))
                    .withLeaseDuration(Duration.ofSeconds(15))
                    .withRenewDeadline(Duration.ofSeconds(10))
                    .withRetryPeriod(Duration.ofSeconds(2))
                    .withReleaseOnCancel(true)
                    .withLeaderCallbacks(
                        new LeaderCallbacks(
                            this::startWatching,
                            this::stopWatching,
                            leader -> log.info("watchers' leader is {}", leader)))
                    .build())
            .build();
    election = elector.start();
  }

  /** Starts watching now, without an election (single replica, tests, {@code tandem dev}). */
  public synchronized void startWatching() {
    if (leading) {
      return;
    }
    leading = true;
    metrics.leader(true);
    log.info("{} starts watching", cfg.identity());
    coalescer = new Coalescer(cfg.signalThreads(), Duration.ofMillis(500), metrics);
    pods = new PodWatcher(k8s, coalescer, signals, metrics, cfg.informerResync());
    nodes =
        new K8sNodeWatcher(
            k8s,
            pods,
            coalescer,
            signals,
            metrics,
            cfg.unhealthyConditions(),
            cfg.informerResync());
    nodeSets = new NodeSetWatcher(k8s, coalescer, signals, metrics, cfg.informerResync());
    poller =
        new SlurmPoller(
            slurm,
            pods,
            coalescer,
            signals,
            new SlurmMirror(k8s, clock),
            metrics,
            cfg.slurmInterval(),
            cfg.slurmFullResync(),
            clock);
    pods.onPodChanged(
        p -> {
          nodes.podChanged(p);
          poller.podChanged(p);
        });
    pods.start();
    nodes.start();
    nodeSets.start();
    poller.start();
    if (!supervised) {
      supervised = true;
      supervisor.scheduleWithFixedDelay(this::supervise, 10, 10, TimeUnit.SECONDS);
    }
  }

  private synchronized void supervise() {
    if (!leading) {
      return;
    }
    restartIfStopped("pod", pods.running(), pods::close, pods::start);
    restartIfStopped("node", nodes.running(), nodes::close, nodes::start);
    restartIfStopped("nodeset", nodeSets.running(), nodeSets::close, nodeSets::start);
  }

  private void restartIfStopped(String what, boolean running, Runnable stop, Runnable start) {
    if (running) {
      return;
    }
    log.warn("{} informer stopped; restarting it", what);
    metrics.error("informer-restart");
    try {
      stop.run();
      start.run();
    } catch (RuntimeException e) {
      log.warn("restarting the {} informer failed (will retry): {}", what, e.getMessage());
    }
  }

  /** Stops watching (lost the lease, or shutting down). Workers keep running. */
  public synchronized void stopWatching() {
    if (!leading) {
      return;
    }
    leading = false;
    metrics.leader(false);
    log.info("{} stops watching", cfg.identity());
    poller.close();
    nodeSets.close();
    nodes.close();
    pods.close();
    coalescer.close();
  }

  public boolean leading() {
    return leading;
  }

  /** Everything the watchers index, for tests: the pod watcher. */
  public PodWatcher pods() {
    return pods;
  }

  public SlurmPoller poller() {
    return poller;
  }

  public Coalescer coalescer() {
    return coalescer;
  }

  @Override
  public void close() {
    if (election != null) {
      election.cancel(true);
    }
    stopWatching();
    supervisor.shutdownNow();
  }
}
