package dev.tandem.watchers;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.slurm.SlurmViews;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.SlurmNodeView;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The node half of the {@link SlurmPoller}: {@code slurmObserved} signals to the node workflow of
 * each Tandem-managed Slurm node when it changes or leaves Slurm, the mirror of administrators'
 * drains onto pods ({@link SlurmMirror}), and the drain ages behind the drain-stuck alert ({@link
 * DrainAges}). Same memory rules as the jobs ({@link SlurmJobTracker}): a view is remembered when
 * read, a signal the coalescer gives up is marked undelivered and sent again with the next changed
 * listing, and a node that vanished while its last signal was lost is reported unknown later.
 * Polled from the poller thread only (the undelivered marks also from the coalescer's threads).
 */
final class SlurmNodeTracker {
  private final SlurmClient slurm;
  private final PodWatcher pods;
  private final Coalescer coalescer;
  private final WorkflowSignals signals;
  private final SlurmMirror mirror;
  private final WatcherMetrics metrics;
  private final Clock clock;
  private final DrainAges drainAges;
  private final Map<String, SlurmNodeView> nodes = new ConcurrentHashMap<>();

  /** Views whose signal was given up: sent again on the next changed listing. */
  private final Map<String, SlurmNodeView> undelivered = new ConcurrentHashMap<>();

  /**
   * A full listing sends an unchanged node's view again once in this many (30 min at the 1 min
   * default): in between it signals what differs, like an incremental one. Sending every node every
   * minute would cost a signal, a workflow task and a pod read per node per minute at rest (1,000
   * signals a minute at 1,000 nodes) and keep every node's safety re-read at its shortest wait. A
   * lost signal is still repaired: the coalescer marks what it gave up (undelivered, sent again),
   * and each node re-reads Slurm itself at rest (docs/architecture.md).
   */
  static final int RESEND_ALL_EVERY = 30;

  private final ResendSweep sweep = new ResendSweep(RESEND_ALL_EVERY, ResendSweep.MAX);

  private Instant since;
  private volatile RemediationWatch remediation;
  private volatile DemandFeed demand;

  SlurmNodeTracker(
      SlurmClient slurm,
      PodWatcher pods,
      Coalescer coalescer,
      WorkflowSignals signals,
      SlurmMirror mirror,
      WatcherMetrics metrics,
      Clock clock) {
    this.slurm = slurm;
    this.pods = pods;
    this.coalescer = coalescer;
    this.signals = signals;
    this.mirror = mirror;
    this.metrics = metrics;
    this.clock = clock;
    this.drainAges = new DrainAges(clock);
    metrics.drains(null, drainAges);
  }

  /** Lists nodes (all of them when {@code full}) and signals what changed. */
  void poll(boolean full, Instant now) {
    Listing<SlurmNode> ln = slurm.listNodes(full ? null : since);
    if (!ln.changed()) {
      return;
    }
    metrics.queue().nodes(ln.items());
    DemandFeed d = demand;
    if (d != null) {
      d.nodesListed(ln.items());
    }
    Set<String> resend = full ? sweep.next(ln.items().stream().map(SlurmNode::name)) : Set.of();
    Map<String, SlurmNodeView> seen = new HashMap<>();
    for (SlurmNode n : ln.items()) {
      SlurmNodeView v = SlurmViews.node(n, now);
      seen.put(n.name(), v);
      SlurmNodeView before = nodes.put(n.name(), v);
      boolean lost = undelivered.remove(n.name()) != null;
      if (resend.contains(n.name()) || lost || before == null || !sameNode(before, v)) {
        metrics.event("slurm", "node");
        onNode(v, true);
      } else if (full) {
        onNode(v, false); // drain ages and remediation triggers see it; no signal, no mirror
      }
    }
    for (String gone : List.copyOf(nodes.keySet())) {
      if (!seen.containsKey(gone)) {
        nodes.remove(gone);
        drainAges.gone(gone);
        undelivered.remove(gone);
        onNode(SlurmNodeView.unknown(gone, now));
      }
    }
    for (String lost : List.copyOf(undelivered.keySet())) {
      if (!seen.containsKey(lost) && undelivered.remove(lost) != null) {
        onNode(SlurmNodeView.unknown(lost, now)); // its end was never heard
      }
    }
    since = ln.updateTime();
  }

  /** Where node listings go for the autoscaled NodeSets' shapes; until set, nowhere. */
  void demand(DemandFeed d) {
    this.demand = d;
  }

  /** Also sends the remediation triggers and rechecks these Slurm nodes call for. */
  void remediation(RemediationWatch r) {
    this.remediation = r;
  }

  /**
   * A pod appeared or changed: bring its mirror up to date with what Slurm last said, and look at
   * its remediation trigger on the node it is bound to now.
   */
  void podChanged(Pod pod) {
    SlurmNodeView v = nodes.get(pod.getMetadata().getName());
    if (v != null) {
      submitMirror(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), v);
      RemediationWatch r = remediation;
      if (r != null) {
        r.slurmObserved(v, k8sNodeOf(pod), false);
      }
    }
  }

  private static String k8sNodeOf(Pod pod) {
    return pod.getSpec() == null ? null : pod.getSpec().getNodeName();
  }

  /** The last view of a Slurm node, if any. */
  SlurmNodeView lastView(String node) {
    return nodes.get(node);
  }

  /** This term's drain ages stop being shown. */
  void close() {
    metrics.drains(drainAges, null);
    metrics.queue().clear();
  }

  private void onNode(SlurmNodeView v) {
    onNode(v, true);
  }

  private void onNode(SlurmNodeView v, boolean send) {
    Pod pod = pods.podFor(v.name()).orElse(null);
    if (pod == null) {
      drainAges.gone(v.name());
      return; // not a Tandem-managed node (static nodes, other pools)
    }
    drainAges.observed(v, v.observedAt());
    RemediationWatch r = remediation;
    if (r != null) {
      r.slurmObserved(v, k8sNodeOf(pod), true);
    }
    if (!send) {
      return;
    }
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    Instant seen = clock.instant();
    coalescer.submit(
        ns + "/" + name + ":slurm",
        () -> {
          boolean ok = signals.node(ns, name, Names.SIGNAL_SLURM_OBSERVED, v);
          undelivered.remove(v.name(), v);
          metrics.signal(Names.SIGNAL_SLURM_OBSERVED, ok ? "sent" : "not-running");
          metrics.lag("slurm", Duration.between(seen, clock.instant()));
        },
        () -> undelivered.put(v.name(), v));
    submitMirror(ns, name, v);
  }

  private void submitMirror(String ns, String name, SlurmNodeView v) {
    Instant seen = clock.instant();
    coalescer.submit(
        ns + "/" + name + ":mirror",
        () -> {
          mirror.apply(ns, name, v);
          metrics.lag("mirror", Duration.between(seen, clock.instant()));
        });
  }

  static boolean sameNode(SlurmNodeView a, SlurmNodeView b) {
    return a.known() == b.known()
        && Objects.equals(a.state(), b.state())
        && a.flags().equals(b.flags())
        && Objects.equals(a.reason(), b.reason())
        && Objects.equals(a.slurmdStartTime(), b.slurmdStartTime());
  }
}
