package dev.tandem.watchers;

import dev.tandem.k8s.CrdAnchor;
import dev.tandem.slurm.SlurmClient;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One term of watching: every watcher, their coalescer and the cluster health reporter, from the
 * moment this replica starts watching until it stops. A new term starts with fresh memories, so
 * what a previous term asked never suppresses a signal of this one.
 *
 * <p>Start order matters: the pod watcher's cache is the index the others look pods up in, so it
 * starts and syncs first. {@link #start()} gives up between steps once the term is closed or its
 * thread interrupted (leadership was lost while it waited for a cache).
 */
final class Watching implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Watching.class);

  final Coalescer coalescer;
  final PodWatcher pods;
  final SchedulingPodWatcher scheduling;
  final K8sNodeWatcher nodes;
  final NodeSetWatcher nodeSets;
  final BudgetWatcher budgets;
  final SlurmPoller poller;
  final ClusterHealthReporter health;
  final TopologyPublisher topology; // null when off
  private final WatcherMetrics metrics;
  private final Map<String, Long> notRunningSince = new ConcurrentHashMap<>();
  private volatile boolean closed;

  Watching(
      KubernetesClient k8s,
      SlurmClient slurm,
      WorkflowSignals signals,
      WatcherMetrics metrics,
      Watchers.Config cfg,
      Clock clock,
      Watchers.TopologyConfig topo,
      KubernetesAccess access) {
    this.metrics = metrics;
    coalescer = new Coalescer(cfg.signalThreads(), Duration.ofMillis(500), metrics);
    // One cache of the CRD's uid for the budgets (NodeSet watcher) and the pods' anchors.
    CrdAnchor crdAnchor = new CrdAnchor(k8s, clock);
    pods = new PodWatcher(k8s, coalescer, signals, metrics, cfg.informerResync());
    scheduling = new SchedulingPodWatcher(k8s, coalescer, signals, metrics, cfg.informerResync());
    nodeSets =
        new NodeSetWatcher(k8s, coalescer, signals, metrics, cfg.informerResync(), crdAnchor);
    budgets = new BudgetWatcher(k8s, metrics, nodeSets::budgetTouched);
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
    nodes =
        new K8sNodeWatcher(
            k8s,
            pods,
            coalescer,
            signals,
            metrics,
            cfg.unhealthyConditions(),
            cfg.informerResync(),
            nodeSets::policy,
            cfg.clusterBudget(),
            poller::lastView);
    poller.pendingInterval(cfg.slurmPendingInterval());
    Duration probe = cfg.reachability().kubernetesProbe();
    health =
        new ClusterHealthReporter(
            nodeSets::known,
            coalescer,
            signals,
            metrics,
            clock,
            access::latest,
            probe,
            cfg.reachability().resend());
    RemediationWatch remediation =
        new RemediationWatch(
            pods::podsOn,
            pods::all,
            nodeSets::policy,
            coalescer,
            signals,
            metrics,
            K8sNodeWatcher.REDELIVER_AFTER);
    remediation.lookups(nodes::cached, poller::lastView);
    nodes.remediation(remediation);
    poller.remediation(remediation);
    nodeSets.onPolicyChanged(
        ref -> {
          remediation.policyChanged(ref);
          nodes.budgetChanged();
        });
    topology =
        topo.spec().enabled()
            ? new TopologyPublisher(
                k8s,
                topo.namespace(),
                topo.spec(),
                pods::all,
                nodes::cached,
                () -> pods.synced() && nodes.synced(),
                metrics,
                topo.debounce(),
                topo.repair())
            : null;
    if (topology != null) {
      nodes.onLabelsChanged(topology::changed);
    }
    pods.onPodChanged(
        p -> {
          nodes.podChanged(p);
          poller.podChanged(p);
          if (topology != null) {
            topology.changed();
          }
        });
    pods.onPodSeen(new PodAnchors(k8s, crdAnchor, coalescer, metrics)::check);
    poller.routeJobs(scheduling);
    poller.onReachability(health);
    DemandFeed demand = new DemandFeed(nodeSets::autoscaled, coalescer, signals, metrics);
    poller.feedDemand(demand);
    nodeSets.onSpecSent(
        ref -> {
          health.nodeSetRunning(ref);
          demand.nodeSetRunning(ref);
        });
  }

  void start() {
    pods.start();
    if (abandoned()) {
      return;
    }
    nodes.start();
    if (abandoned()) {
      return;
    }
    if (topology != null) {
      topology.start(); // after both caches listed: its first pass publishes at once
    }
    nodeSets.start();
    if (abandoned()) {
      return;
    }
    budgets.start(); // after the NodeSet cache: a touched budget is ensured from it
    if (abandoned()) {
      return;
    }
    scheduling.start(); // before the poller: its cache routes placeholder jobs
    if (abandoned()) {
      return;
    }
    poller.start();
    health.start(); // after the NodeSet cache is filled: the first reports reach every NodeSet
  }

  private boolean abandoned() {
    return closed || Thread.currentThread().isInterrupted();
  }

  private List<InformerWatcher<?>> informers() {
    return List.of(pods, nodes, nodeSets, budgets, scheduling);
  }

  /** Restarts any informer that stopped for good; remembers since when each is down. */
  void supervise() {
    for (InformerWatcher<?> w : informers()) {
      if (closed) {
        return;
      }
      if (w.running()) {
        notRunningSince.remove(w.source());
        continue;
      }
      notRunningSince.putIfAbsent(w.source(), System.nanoTime());
      log.warn("{} informer stopped; restarting it", w.source());
      metrics.error("informer-restart");
      try {
        w.close();
        w.start();
      } catch (RuntimeException e) {
        log.warn("restarting the {} informer failed (will retry): {}", w.source(), e.toString());
      }
      // Down until a later pass sees it running (right after a failed start it may still look so).
    }
  }

  /** What is dead in this term, or an empty list. */
  List<String> problems(Duration deadAfter) {
    List<String> out = new ArrayList<>();
    if (closed) {
      return out;
    }
    for (InformerWatcher<?> w : informers()) {
      Long since = notRunningSince.get(w.source());
      if (since != null && !w.running()) {
        Duration down = Duration.ofNanos(System.nanoTime() - since);
        if (down.compareTo(deadAfter) > 0) {
          out.add(
              "the "
                  + w.source()
                  + " informer stopped "
                  + down.toSeconds()
                  + "s ago and could not be restarted");
        }
      }
    }
    String p = poller.problem();
    if (p != null) {
      out.add(p);
    }
    if (!coalescer.open()) {
      out.add("the signal coalescer is closed");
    }
    p = health.problem();
    if (p != null) {
      out.add(p);
    }
    return out;
  }

  @Override
  public void close() {
    closed = true;
    poller.close();
    health.close();
    if (topology != null) {
      topology.close();
    }
    budgets.close();
    nodeSets.close();
    scheduling.close();
    nodes.close();
    pods.close();
    coalescer.close();
  }
}
