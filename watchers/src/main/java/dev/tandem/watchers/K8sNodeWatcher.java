package dev.tandem.watchers;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.remediation.RemediationPolicy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Turns Kubernetes node health into Slurm drains of the slurmd pods on that node, and holds a Node
 * being deleted while jobs run there ({@link NodeFinalizer}).
 *
 * <ul>
 *   <li>Cordon ({@code spec.unschedulable}) or deletion → {@code drain} with owner {@code
 *       k8s-cordon} and the reason from the annotation {@code tandem.dev/cordon-reason} (or a
 *       default); uncordon → {@code undrain} of that owner only, so other drains stay. A cordon is
 *       a person's act (or their automation's, e.g. {@code kubectl drain}): it is never budgeted.
 *   <li>A configured condition in a bad state ({@code Ready} not True, or e.g. {@code GpuUnhealthy}
 *       True) → a drain with owner {@code k8s-unhealthy} and {@code <condition>: <message>}, asked
 *       of the budget ({@link UnhealthyDrains}), which sets it only within {@code
 *       spec.remediation.budget}; healthy again → the budget lifts it.
 * </ul>
 *
 * <p>What was asked per (pod, owner) for cordons is remembered, so unchanged nodes cost nothing;
 * but only what Temporal accepted counts as said (fail closed: a cordon whose drain was lost must
 * not look sent). What happened while no watcher ran is unknown, so:
 *
 * <ol>
 *   <li>After the node informer's first listing (the pod cache is synced before it starts), one
 *       pass sends the full desired state of every pod, undrains of owners that hold nothing
 *       included; node workflows ignore those silently.
 *   <li>A pod first seen later (created since, or missed because the pod cache was late) gets an
 *       undrain only on the informer's periodic resync, and only once: a new pod holds nothing, so
 *       the common case costs no signal, and a missed one is repaired within a resync period.
 *   <li>Every change of a node's cordon or conditions sends what changed, as it happens.
 *   <li>An ask is {@code pending} from submission until its signal is accepted, then {@code
 *       delivered}. A pass skips an ask equal to the pending one, or to the delivered one when none
 *       is pending. When the coalescer gives up on a signal (Temporal unreachable past its retries)
 *       the pending ask is forgotten, so the delivered state (older, or none) is what a later pass
 *       compares with: the next change or resync sends it again. Besides, the pod is looked at
 *       again after {@link #REDELIVER_AFTER} (or the resync period if shorter), and again after
 *       each failure, so an undelivered drain is retried until it lands.
 * </ol>
 */
public class K8sNodeWatcher extends InformerWatcher<Node> {
  /** Annotation on a Kubernetes Node that says why it was cordoned. */
  public static final String CORDON_REASON = Names.PREFIX + "cordon-reason";

  private final KubernetesClient client;
  private final PodWatcher pods;
  private final Coalescer coalescer;
  private final WorkflowSignals signals;
  private final WatcherMetrics metrics;
  private final Set<String> unhealthyConditions;
  private final Duration resync;
  private final UnhealthyDrains drains;
  private final NodeFinalizer finalizer;

  /** Per (pod, owner) key: the reason asked and not yet accepted ("-" = undrain). */
  private final Map<String, String> pending = new ConcurrentHashMap<>();

  /** Per (pod, owner) key: the last reason Temporal accepted ("-" = undrain). */
  private final Map<String, String> delivered = new ConcurrentHashMap<>();

  /** How long after a signal was given up the pod is looked at again. */
  static final Duration REDELIVER_AFTER = Duration.ofSeconds(30);

  private volatile boolean primed;

  /**
   * Node name to the resourceVersion the first full pass saw: the informer may deliver the adds of
   * its initial listing after that pass, and those must not send everything a second time.
   */
  private final Map<String, String> firstPass = new ConcurrentHashMap<>();

  private volatile Duration redeliverAfter = REDELIVER_AFTER;
  private volatile RemediationWatch remediation;
  private volatile Runnable labelsChanged = () -> {};

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
   * @param clusterBudget {@code TANDEM_CLUSTER_BUDGET}: at most this many Kubernetes nodes out
   *     through automatic actions cluster-wide, or 0 for a tenth of those hosting slurmd pods
   * @param slurmViews the Slurm watcher's latest view of a Slurm node ({@link
   *     SlurmPoller#lastView}): when a Node being deleted runs no job any more ({@link
   *     NodeFinalizer})
   */
  public K8sNodeWatcher(
      KubernetesClient client,
      PodWatcher pods,
      Coalescer coalescer,
      WorkflowSignals signals,
      WatcherMetrics metrics,
      Set<String> unhealthyConditions,
      Duration resync,
      Function<NodeSetRef, RemediationPolicy> policies,
      int clusterBudget,
      Function<String, SlurmNodeView> slurmViews) {
    super("node", metrics);
    this.client = client;
    this.pods = pods;
    this.coalescer = coalescer;
    this.signals = signals;
    this.metrics = metrics;
    this.unhealthyConditions = Set.copyOf(unhealthyConditions);
    this.resync = resync;
    this.drains =
        new UnhealthyDrains(
            pods::podsOn,
            pods::all,
            clusterBudget,
            policies,
            coalescer,
            signals,
            metrics,
            REDELIVER_AFTER,
            this::lookAgain);
    this.finalizer =
        new NodeFinalizer(client, pods::podsOn, this::cached, slurmViews, coalescer, metrics);
  }

  /** Also sends the remediation triggers and rechecks these nodes call for. */
  void remediation(RemediationWatch r) {
    this.remediation = r;
  }

  /** Called when a node is added or deleted or its labels change (the topology follows them). */
  void onLabelsChanged(Runnable r) {
    this.labelsChanged = r;
  }

  /** A node in the cache, or null. */
  Node cached(String name) {
    SharedIndexInformer<Node> informer = informer();
    return informer == null ? null : informer.getStore().getByKey(name);
  }

  @Override
  protected SharedIndexInformer<Node> newInformer() {
    primed = false;
    firstPass.clear();
    return client.nodes().runnableInformer(resync.toMillis());
  }

  @Override
  protected void onAdd(Node n) {
    labelsChanged.run();
    String seen = firstPass.remove(n.getMetadata().getName());
    if (primed && !Objects.equals(seen, n.getMetadata().getResourceVersion())) {
      apply(n, Pass.FULL); // a node added later: its pods are new too
    }
  }

  @Override
  protected void onUpdate(Node old, Node n, boolean resyncPass) {
    if (!Objects.equals(old.getMetadata().getLabels(), n.getMetadata().getLabels())) {
      labelsChanged.run();
    }
    apply(n, resyncPass ? Pass.RESYNC : Pass.CHANGE);
  }

  // The pods on a deleted node are lost too; the pod watcher and node workflows take over.
  @Override
  protected void onDelete(Node n, boolean unknownFinalState) {
    labelsChanged.run();
    drains.gone(n.getMetadata().getName());
    RemediationWatch r = remediation;
    if (r != null) {
      r.nodeGone(n.getMetadata().getName());
    }
  }

  /** The first listing is in the store: now the full pass. */
  @Override
  protected void onFirstSync() {
    SharedIndexInformer<Node> informer = informer();
    if (informer == null) {
      return;
    }
    List<Node> listed = informer.getStore().list();
    for (Node n : listed) {
      firstPass.put(n.getMetadata().getName(), n.getMetadata().getResourceVersion());
    }
    primed = true;
    for (Node n : listed) {
      apply(n, Pass.FULL);
    }
    drains.sweep();
  }

  /** A NodeSet's budget may have changed: every unhealthy node asks again (unchanged: nothing). */
  void budgetChanged() {
    SharedIndexInformer<Node> informer = informer();
    if (informer != null) {
      for (Node n : informer.getStore().list()) {
        drains.observe(n, unhealthyReason(n), false);
      }
    }
  }

  /** Observes a node's drain again by name (after a signal was given up). */
  private void lookAgain(String name) {
    Node n = cached(name);
    if (n == null) {
      drains.gone(name);
    } else {
      drains.observe(n, unhealthyReason(n), false);
    }
  }

  /**
   * A pod appeared on (or moved to) a node: give it that node's drains. A pod on no node yet (the
   * replacement of an evicted pod, Pending) is on no cordoned or unhealthy node: the cordon drain
   * asked for the pod of that name before is lifted, so the hold does not stay with the old node,
   * and an unhealthy node whose drain named it asks again without it. (The node workflow holds its
   * own drain until the new slurmd registers.)
   */
  public void podChanged(Pod pod) {
    SharedIndexInformer<Node> informer = informer();
    if (informer == null || pod.getSpec() == null) {
      return;
    }
    String on = pod.getSpec().getNodeName();
    for (String other :
        drains.nodesNaming(pod.getMetadata().getNamespace(), pod.getMetadata().getName())) {
      if (!other.equals(on)) {
        lookAgain(other);
      }
    }
    if (on == null) {
      if (pod.getMetadata().getDeletionTimestamp() == null) {
        ask(pod, DrainCause.K8S_CORDON, null, Pass.CHANGE);
      }
      return;
    }
    Node n = informer.getStore().getByKey(on);
    if (n != null) {
      applyTo(pod, n, Pass.CHANGE);
      finalizer.observe(n);
      drains.observe(n, unhealthyReason(n), false);
      RemediationWatch r = remediation;
      if (r != null) {
        r.nodeObserved(n, false); // its NodeSets, hence its policy, may have changed
      }
    }
  }

  private void apply(Node n, Pass pass) {
    for (Pod pod : pods.podsOn(n.getMetadata().getName())) {
      applyTo(pod, n, pass);
    }
    drains.observe(n, unhealthyReason(n), pass == Pass.FULL);
    finalizer.observe(n);
    RemediationWatch r = remediation;
    if (r != null) {
      r.nodeObserved(n, true);
    }
  }

  private void applyTo(Pod pod, Node n, Pass pass) {
    ask(pod, DrainCause.K8S_CORDON, cordonReason(n), pass);
  }

  /** Sends drain (reason not null) or undrain for one owner, if the pass calls for it. */
  private void ask(Pod pod, DrainCause owner, String reason, Pass pass) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    String key = ns + "/" + name + ":" + owner.label();
    String desired = reason == null ? "-" : reason;
    String inFlight = pending.get(key);
    String last = inFlight != null ? inFlight : delivered.get(key);
    if (pass != Pass.FULL && desired.equals(last)) {
      return;
    }
    if (last == null && reason == null && pass == Pass.CHANGE) {
      return; // not asked yet: the next resync sends it once
    }
    pending.put(key, desired);
    String signal = reason == null ? Names.SIGNAL_UNDRAIN : Names.SIGNAL_DRAIN;
    NodeCommand cmd = NodeCommand.of(owner, reason == null ? "cleared in Kubernetes" : reason);
    Instant seen = Instant.now();
    coalescer.submit(
        key,
        () -> {
          boolean ok = signals.node(ns, name, signal, cmd);
          if (ok) {
            delivered.put(key, desired);
          }
          // Not running: nobody heard it, so nothing counts as said; the next resync asks again
          // (a workflow that appears meanwhile, e.g. adopting the pod, gets it then).
          pending.remove(key, desired);
          metrics.signal(signal, ok ? "sent" : "not-running");
          metrics.lag("node", Duration.between(seen, Instant.now()));
        },
        () -> {
          pending.remove(key, desired);
          coalescer.later(redeliverAfter(), () -> recheck(ns, name));
        });
  }

  private Duration redeliverAfter() {
    return resync.compareTo(redeliverAfter) < 0 ? resync : redeliverAfter;
  }

  /** For tests: when a pod whose signal was given up is looked at again. */
  K8sNodeWatcher redeliverAfter(Duration d) {
    this.redeliverAfter = d;
    return this;
  }

  /** A signal for this pod was given up: ask again what its node calls for now. */
  private void recheck(String ns, String name) {
    SharedIndexInformer<Node> informer = informer();
    if (informer == null) {
      return;
    }
    pods.podFor(name)
        .filter(p -> ns.equals(p.getMetadata().getNamespace()))
        .filter(p -> p.getSpec() != null && p.getSpec().getNodeName() != null)
        .ifPresent(
            p -> {
              Node n = informer.getStore().getByKey(p.getSpec().getNodeName());
              if (n != null) {
                applyTo(p, n, Pass.RESYNC);
              }
            });
  }

  /** Why the node's Slurm nodes are drained as for a cordon (being deleted counts), or null. */
  static String cordonReason(Node n) {
    if (n.getMetadata().getDeletionTimestamp() != null) {
      return "Kubernetes node "
          + n.getMetadata().getName()
          + " is being deleted (held until the jobs on it end)";
    }
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
        bad.add(conditionText(c));
      }
    }
    return bad.isEmpty() ? null : String.join("; ", bad);
  }

  /** {@code <Type>=<Status>: <message, else reason>}, as drains and remediation triggers say it. */
  static String conditionText(NodeCondition c) {
    String msg =
        c.getMessage() == null || c.getMessage().isBlank() ? c.getReason() : c.getMessage();
    return c.getType() + "=" + c.getStatus() + (msg == null ? "" : ": " + msg);
  }
}
