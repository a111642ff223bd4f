package dev.tandem.watchers;

import dev.tandem.k8s.PodLabels;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.SlurmNodeView;
import dev.tandem.workflows.remediation.RemediationPolicy;
import dev.tandem.workflows.remediation.RemediationTrigger;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Sends the remediation triggers and rechecks the watchers see reason for (docs/remediation.md,
 * "Triggers"); what calls for a trigger is decided by {@link RemediationTriggers}. Called from
 * informer callbacks and the Slurm poller: it never blocks, everything it sends goes through the
 * {@link Coalescer}; what was asked is remembered by {@link TriggerDelivery}.
 *
 * <ol>
 *   <li>Each source of trouble is a scope: {@code node:<k8s-node>} (its conditions) or {@code
 *       slurm:<slurm-node>}. An observation of a scope (a change, a resync, a first pass, a policy
 *       or pod change) yields the triggers it calls for, by signature. A scope whose policy is
 *       disabled is forgotten.
 *   <li>A signature the scope does not hold yet is new trouble: its trigger is handed to the
 *       coalescer. A signature held (pending, sent, held back) sends nothing, so unchanged trouble
 *       costs nothing; one the observation no longer calls for is forgotten, so the same trouble
 *       coming back triggers again.
 *   <li>Trouble found in a scope's first observation of this term (the watchers just started, the
 *       node is new, the policy was just turned on) may be old trouble whose remediation already
 *       ended {@code Failed}: starting the ladder again would reboot or replace that machine at
 *       every restart of the watchers. Such a trigger first asks how the node's last remediation
 *       ended; {@code Failed} holds it back (a human decides, docs/remediation.md runbook) until
 *       the trouble clears and comes back. Trouble that appears while this term watches is sent as
 *       is.
 *   <li>A trigger the coalescer gave up on (Temporal unreachable past its retries) is marked
 *       undelivered: the next observation of its scope sends it again (a resync at the latest), and
 *       so does a look after the redelivery delay.
 *   <li>{@code recheck} (a plain signal: it never starts anything) goes to {@code
 *       remediation/<k8s-node>} when the node's health changes (Ready and the policy's conditions,
 *       by status: not heartbeats), and when a Slurm node on it changes while a remediation is
 *       known to run there (a trigger was sent, or the last recheck reached one).
 * </ol>
 */
final class RemediationWatch {

  private final Function<String, List<Pod>> podsOn;
  private final Supplier<List<Pod>> allPods;
  private final Function<NodeSetRef, RemediationPolicy> policies;
  private final Coalescer coalescer;
  private final WorkflowSignals signals;
  private final WatcherMetrics metrics;
  private final TriggerDelivery delivery;
  private final Map<String, String> health = new ConcurrentHashMap<>();
  private final Set<String> remediating = ConcurrentHashMap.newKeySet();
  private volatile Function<String, Node> nodes = name -> null;
  private volatile Function<String, SlurmNodeView> slurmViews = name -> null;

  /**
   * @param podsOn the slurmd pods bound to a Kubernetes node ({@link PodWatcher#podsOn})
   * @param allPods every cached slurmd pod ({@link PodWatcher#all})
   * @param policies the policy of a NodeSet as last converted ({@link NodeSetWatcher#policy}); null
   *     or disabled when unknown
   */
  RemediationWatch(
      Function<String, List<Pod>> podsOn,
      Supplier<List<Pod>> allPods,
      Function<NodeSetRef, RemediationPolicy> policies,
      Coalescer coalescer,
      WorkflowSignals signals,
      WatcherMetrics metrics,
      Duration redeliverAfter) {
    this.podsOn = podsOn;
    this.allPods = allPods;
    this.policies = policies;
    this.coalescer = coalescer;
    this.signals = signals;
    this.metrics = metrics;
    this.delivery =
        new TriggerDelivery(coalescer, signals, metrics, redeliverAfter, remediating::add);
  }

  /** Where a NodeSet's policy change finds the nodes and Slurm views to look at again. */
  void lookups(Function<String, Node> nodes, Function<String, SlurmNodeView> slurmViews) {
    this.nodes = nodes;
    this.slurmViews = slurmViews;
  }

  /** The policy that governs a Kubernetes node (see {@link RemediationTriggers#policyOf}). */
  RemediationPolicy policyFor(String k8sNode) {
    Set<NodeSetRef> sets = new TreeSet<>((a, b) -> a.toString().compareTo(b.toString()));
    for (Pod p : podsOn.apply(k8sNode)) {
      NodeSetRef ref = nodeSetOf(p);
      if (ref != null) {
        sets.add(ref);
      }
    }
    return RemediationTriggers.policyOf(sets, policies);
  }

  /** A Kubernetes node as the informer has it; {@code changed}: an event, not a re-evaluation. */
  void nodeObserved(Node n, boolean changed) {
    String name = n.getMetadata().getName();
    RemediationPolicy p = policyFor(name);
    if (changed) {
      // Only the informer's own events move the remembered health: a re-evaluation may read a
      // newer object from the cache than the event still on its way, and must not swallow it.
      String h = RemediationTriggers.health(n, p);
      String before = health.put(name, h);
      if (before != null && !before.equals(h)) {
        recheck(name);
      }
    }
    delivery.observe("node:" + name, name, p.enabled() ? RemediationTriggers.forNode(n, p) : null);
  }

  void nodeGone(String name) {
    health.remove(name);
    remediating.remove(name);
    delivery.observe("node:" + name, name, null);
  }

  /**
   * A Slurm node as the poller last read it, on the Kubernetes node its pod is bound to (null: not
   * bound); {@code changed}: the view changed (not a re-evaluation).
   */
  void slurmObserved(SlurmNodeView v, String k8sNode, boolean changed) {
    String scope = "slurm:" + v.name();
    if (k8sNode == null) {
      delivery.observe(scope, null, null);
      return;
    }
    RemediationPolicy p = policyFor(k8sNode);
    Map<String, RemediationTrigger> want = null;
    if (p.enabled()) {
      Map.Entry<String, RemediationTrigger> t = RemediationTriggers.forSlurmNode(v, k8sNode, p);
      want = t == null ? Map.of() : Map.of(t.getKey(), t.getValue());
    }
    delivery.observe(scope, k8sNode, want);
    if (changed && remediating.contains(k8sNode)) {
      recheck(k8sNode);
    }
  }

  /** A NodeSet's policy changed (or became known): look at its nodes again. */
  void policyChanged(NodeSetRef ref) {
    Set<String> k8sNodes = new TreeSet<>();
    for (Pod p : allPods.get()) {
      if (!ref.equals(nodeSetOf(p)) || p.getSpec() == null || p.getSpec().getNodeName() == null) {
        continue;
      }
      k8sNodes.add(p.getSpec().getNodeName());
      SlurmNodeView v = slurmViews.apply(p.getMetadata().getName());
      if (v != null) {
        slurmObserved(v, p.getSpec().getNodeName(), false);
      }
    }
    for (String name : k8sNodes) {
      Node n = nodes.apply(name);
      if (n != null) {
        nodeObserved(n, false);
      }
    }
  }

  private void recheck(String k8sNode) {
    coalescer.submit(
        "remediation:recheck:" + k8sNode,
        () -> {
          boolean ok =
              signals.workflow(Names.remediationWorkflowId(k8sNode), Names.SIGNAL_RECHECK, null);
          if (ok) {
            remediating.add(k8sNode);
          } else {
            remediating.remove(k8sNode);
          }
          metrics.signal(Names.SIGNAL_RECHECK, ok ? "sent" : "not-running");
        });
  }

  private static NodeSetRef nodeSetOf(Pod p) {
    var labels = p.getMetadata().getLabels();
    String set = labels == null ? null : labels.get(PodLabels.NODESET);
    return set == null ? null : new NodeSetRef(p.getMetadata().getNamespace(), set);
  }
}
