package dev.tandem.watchers;

import dev.tandem.k8s.PodLabels;
import dev.tandem.k8s.PodViews;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.PodView;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Watches slurmd pods (label {@code tandem.dev/nodeset}; only Tandem's pods are cached, so memory
 * follows the number of Slurm nodes, not the cluster's pods) and tells their node workflow about
 * changes that matter to it: phase, readiness, Kubernetes node, deletion, identity.
 *
 * <p>Also the index other watchers use: the slurmd pods on a Kubernetes node, and the pod of a
 * Slurm node. Both are computed in memory from the cache: one watch of every slurmd pod, not one
 * request per node.
 */
public final class PodWatcher extends InformerWatcher<Pod> {
  static final String BY_NODE = "byNode";
  static final String BY_NAME = "byName";

  private final KubernetesClient client;
  private final Coalescer coalescer;
  private final WorkflowSignals signals;
  private final WatcherMetrics metrics;
  private final Duration resync;

  /** A resync resends an unchanged, delivered view only once in this many periods. */
  static final int RESEND_EVERY = 6;

  /**
   * And at most this many such views a resync pass, whatever the fleet's size: the rest wait for a
   * later pass (issue 14). At 5,000 pods all taken at once, the 6th pass would otherwise send 5,000
   * signals, and 5,000 workflow tasks, in a minute.
   */
  static final int RESEND_MAX = 100;

  private Instant budgetFrom = Instant.MIN;
  private int budgetUsed;

  private final Map<String, Delivered> delivered = new java.util.concurrent.ConcurrentHashMap<>();
  private java.time.Clock clock = java.time.Clock.systemUTC();
  private Consumer<Pod> onPodChanged = p -> {};
  private volatile Consumer<Pod> onPodSeen = p -> {};

  public PodWatcher(
      KubernetesClient client,
      Coalescer coalescer,
      WorkflowSignals signals,
      WatcherMetrics metrics,
      Duration resync) {
    super("pod", metrics);
    this.client = client;
    this.coalescer = coalescer;
    this.signals = signals;
    this.metrics = metrics;
    this.resync = resync;
  }

  /** For tests: the clock that dates deliveries. */
  PodWatcher clock(java.time.Clock c) {
    this.clock = c;
    return this;
  }

  /** Also called for every change (the K8s node watcher re-applies cordons to moved pods). */
  public void onPodChanged(Consumer<Pod> c) {
    this.onPodChanged = c;
  }

  /**
   * Called with every pod version the informer delivers (adds, every update, resyncs), on the
   * informer thread: must not block. {@link PodAnchors} uses it.
   */
  public void onPodSeen(Consumer<Pod> c) {
    this.onPodSeen = c;
  }

  // start() waits (bounded) for the first listing: the node watcher's first pass reads this cache,
  // and a pass over an empty cache would lose the undrains of cordons lifted while no watcher ran.
  @Override
  protected SharedIndexInformer<Pod> newInformer() {
    SharedIndexInformer<Pod> informer =
        client
            .pods()
            .inAnyNamespace()
            .withLabel(PodLabels.NODESET)
            .runnableInformer(resync.toMillis());
    informer.addIndexers(
        Map.of(
            BY_NODE,
            p ->
                List.of(
                    Objects.toString(p.getSpec() == null ? null : p.getSpec().getNodeName(), "")),
            BY_NAME,
            p -> List.of(p.getMetadata().getName())));
    return informer;
  }

  @Override
  protected void onAdd(Pod pod) {
    onPodSeen.accept(pod);
    send(pod, PodViews.of(pod));
  }

  @Override
  protected void onUpdate(Pod old, Pod pod, boolean resyncPass) {
    onPodSeen.accept(pod);
    PodView after = PodViews.of(pod);
    if (resyncPass ? resendOnResync(pod, after) : !meaningfullySame(PodViews.of(old), after)) {
      // A changed view, or a resync of a view not (recently) delivered: send it.
      send(pod, after);
    }
  }

  @Override
  protected void onDelete(Pod pod, boolean unknownFinalState) {
    // With its uid and creation time: a node workflow that holds the pod's successor already
    // knows this is not about that one (the events of a reconnected watch can come late).
    PodView view = PodViews.of(pod);
    send(pod, PodView.gone(view.name(), view.uid(), view.createdAt()));
  }

  /**
   * A resync resends a pod's view only if its node workflow has not taken exactly this view within
   * {@link #RESEND_EVERY} informer resync periods, and then at most {@link #RESEND_MAX} a pass. The
   * resync is there to repair a delivery that failed or was given up (such a view always goes);
   * resending every unchanged view woke every node workflow once per resync (at 5,000 nodes and the
   * default 10 minutes, 500 signals and workflow tasks a minute) and kept its safety re-reads at
   * their shortest waits. Every taken view still goes again once in {@code max(RESEND_EVERY, pods /
   * RESEND_MAX)} periods, and the node workflows re-read their pod themselves at rest
   * (docs/architecture.md, "Safety re-reads at rest").
   */
  private boolean resendOnResync(Pod pod, PodView view) {
    Delivered d = delivered.get(key(pod));
    if (d == null || !d.view().equals(view)) {
      return true; // never taken: a repair
    }
    Instant now = clock.instant();
    if (Duration.between(d.at(), now).compareTo(resync.multipliedBy(RESEND_EVERY)) < 0) {
      return false;
    }
    synchronized (this) {
      // A resync pass calls this for every pod within moments; passes are a resync apart.
      if (Duration.between(budgetFrom, now).compareTo(resync.dividedBy(2)) >= 0) {
        budgetFrom = now;
        budgetUsed = 0;
      }
      if (budgetUsed >= RESEND_MAX) {
        return false; // a later pass sends it
      }
      budgetUsed++;
      return true;
    }
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  /** A view a node workflow took, and when. */
  private record Delivered(PodView view, Instant at) {}

  private void send(Pod pod, PodView view) {
    onPodChanged.accept(pod);
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    Instant seen = Instant.now();
    String key = key(pod);
    delivered.remove(key); // until this one is taken: a resync in between sends it again
    coalescer.submit(
        key + ":pod",
        () -> {
          boolean ok = signals.node(ns, name, Names.SIGNAL_POD_OBSERVED, view);
          if (ok && view.exists()) {
            delivered.put(key, new Delivered(view, clock.instant()));
          }
          metrics.signal(Names.SIGNAL_POD_OBSERVED, ok ? "sent" : "not-running");
          metrics.lag("pod", Duration.between(seen, Instant.now()));
        });
  }

  /** The fields a node workflow acts on; anything else (e.g. a status heartbeat) is noise. */
  static boolean meaningfullySame(PodView a, PodView b) {
    return a.exists() == b.exists()
        && Objects.equals(a.uid(), b.uid())
        && Objects.equals(a.phase(), b.phase())
        && a.ready() == b.ready()
        && Objects.equals(a.k8sNode(), b.k8sNode())
        && a.terminating() == b.terminating()
        && Objects.equals(a.revision(), b.revision());
  }

  /** Tandem's slurmd pods bound to a Kubernetes node. */
  public List<Pod> podsOn(String k8sNode) {
    SharedIndexInformer<Pod> informer = informer();
    return informer == null ? List.of() : informer.getIndexer().byIndex(BY_NODE, k8sNode);
  }

  /** The pod that backs a Slurm node (the Slurm node name is the pod name). */
  public Optional<Pod> podFor(String slurmNode) {
    SharedIndexInformer<Pod> informer = informer();
    if (informer == null) {
      return Optional.empty();
    }
    return informer.getIndexer().byIndex(BY_NAME, slurmNode).stream().findFirst();
  }

  /** Every cached pod. */
  public List<Pod> all() {
    SharedIndexInformer<Pod> informer = informer();
    return informer == null ? List.of() : informer.getIndexer().list();
  }
}
