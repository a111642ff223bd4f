package dev.tandem.watchers;

import dev.tandem.k8s.PodLabels;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.remediation.BudgetShape;
import dev.tandem.workflows.remediation.BudgetStatus;
import dev.tandem.workflows.remediation.BudgetStatus.Entry;
import dev.tandem.workflows.remediation.RemediationBudget;
import dev.tandem.workflows.remediation.RemediationPolicy;
import dev.tandem.workflows.remediation.SlotRelease;
import dev.tandem.workflows.remediation.SlotRequest;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The unhealthy-condition drain, asked of the budget instead of sent to the node workflows: the
 * budget ({@code remediation-budget}) drains an unhealthy node's Slurm nodes only within {@code
 * spec.remediation.budget} and lifts the drain on {@code release} (docs/remediation.md, "Budgets").
 * Called from informer callbacks: it never blocks, everything goes through the {@link Coalescer},
 * one key per Kubernetes node, so the latest ask wins.
 *
 * <ol>
 *   <li>A Kubernetes node's ask: unhealthy (its reason from {@link K8sNodeWatcher}) with slurmd
 *       pods on it: {@code acquire} of a {@link SlotRequest#DRAIN drain} naming those pods, with
 *       the budget of its NodeSets ({@link #budgetOf}), its topology domain and the {@link #shape()
 *       budget's shape} (how many Kubernetes nodes host each NodeSet's slurmd pods, the cluster
 *       limit); otherwise {@code release}. An ask equal to the last one accepted (or in flight)
 *       sends nothing; a release is sent only for a node this term asked to drain.
 *   <li>The watchers' first pass (a restart, a new leader) cannot know what the previous term
 *       asked: it reads the budget's status and releases every drain whose node is not unhealthy
 *       now. If the budget cannot be read the sweep is tried again later; until then a node that
 *       became healthy meanwhile stays drained (fail closed: never a drain too many, at worst one
 *       too long).
 *   <li>A signal the coalescer gave up on is forgotten, so the node's next observation asks again;
 *       the node is also looked at again after the redelivery delay.
 * </ol>
 */
final class UnhealthyDrains {
  private static final String RELEASE = "-";

  private final Function<String, List<Pod>> podsOn;
  private final Supplier<List<Pod>> allPods;
  private final int clusterBudget;
  private final Function<NodeSetRef, RemediationPolicy> policies;
  private final Coalescer coalescer;
  private final WorkflowSignals signals;
  private final WatcherMetrics metrics;
  private final Duration redeliverAfter;
  private final Consumer<String> lookAgain;

  /** Per Kubernetes node: the drain asked (its request) or {@link #RELEASE}, not yet accepted. */
  private final Map<String, Object> pending = new ConcurrentHashMap<>();

  /** Per Kubernetes node: the last ask the budget accepted. */
  private final Map<String, Object> delivered = new ConcurrentHashMap<>();

  /** Per Kubernetes node: the drain it calls for now (absent: none). */
  private final Map<String, SlotRequest> wanted = new ConcurrentHashMap<>();

  /**
   * @param allPods every slurmd pod the watcher has (for the budget's shape)
   * @param clusterBudget {@code TANDEM_CLUSTER_BUDGET}, or 0: a tenth of the Kubernetes nodes
   *     hosting slurmd pods, at least 1 ({@link BudgetShape#clusterLimit})
   * @param lookAgain observes a Kubernetes node again by name (after a given-up signal)
   */
  UnhealthyDrains(
      Function<String, List<Pod>> podsOn,
      Supplier<List<Pod>> allPods,
      int clusterBudget,
      Function<NodeSetRef, RemediationPolicy> policies,
      Coalescer coalescer,
      WorkflowSignals signals,
      WatcherMetrics metrics,
      Duration redeliverAfter,
      Consumer<String> lookAgain) {
    this.podsOn = podsOn;
    this.allPods = allPods;
    this.clusterBudget = clusterBudget;
    this.policies = policies;
    this.coalescer = coalescer;
    this.signals = signals;
    this.metrics = metrics;
    this.redeliverAfter = redeliverAfter;
    this.lookAgain = lookAgain;
  }

  /**
   * The node as the informer has it; {@code reason} its trouble, or null when healthy; {@code
   * full}: the watchers' first pass, which asks again for a drain even if this term asked already
   * (the budget answers a repeated ask by setting the drains again: a lost one heals).
   */
  void observe(Node n, String reason, boolean full) {
    String name = n.getMetadata().getName();
    List<NodeRef> refs = new ArrayList<>();
    for (Pod p : podsOn.apply(name)) {
      NodeRef r = ref(p);
      if (r != null) {
        refs.add(r);
      }
    }
    refs.sort(Comparator.comparing(r -> r.namespace() + "/" + r.pod()));
    if (reason == null || refs.isEmpty()) {
      wanted.remove(name);
      ask(name, RELEASE, false);
      return;
    }
    RemediationBudget b = budgetOf(refs);
    String label = b.domainLabel();
    Map<String, String> labels = n.getMetadata().getLabels();
    String value = label == null || labels == null ? null : labels.get(label);
    SlotRequest r =
        SlotRequest.drain(
            name, refs, b, shape(), value == null ? null : label + "=" + value, reason);
    wanted.put(name, r);
    ask(name, r, full);
  }

  /** The node is gone: its drain (if any) is released. */
  void gone(String name) {
    wanted.remove(name);
    ask(name, RELEASE, false);
  }

  /** Kubernetes nodes whose drain names this pod (it may have moved or gone). */
  List<String> nodesNaming(String namespace, String pod) {
    List<String> out = new ArrayList<>();
    wanted.forEach(
        (node, r) -> {
          for (NodeRef n : r.nodes()) {
            if (n.namespace().equals(namespace) && n.pod().equals(pod)) {
              out.add(node);
              return;
            }
          }
        });
    return out;
  }

  /** After the first full pass: release the drains the budget has for nodes not unhealthy now. */
  void sweep() {
    coalescer.submit(
        "drain:sweep",
        () -> {
          Optional<BudgetStatus> st = signals.budgetStatus();
          if (st.isEmpty()) {
            return; // no budget runs: nothing was drained through it
          }
          List<Entry> all = new ArrayList<>(st.get().holders());
          all.addAll(st.get().waiting());
          for (Entry e : all) {
            String node = e.request().k8sNode();
            if (e.request().isDrain() && !wanted.containsKey(node)) {
              delivered.put(node, "stale"); // so the release below is not skipped as a duplicate
              ask(node, RELEASE, false);
            }
          }
        },
        () -> coalescer.later(redeliverAfter, this::sweep));
  }

  /**
   * The budget of a node's NodeSets: that of the first (by {@code <ns>/<name>}) whose remediation
   * is enabled, as for its remediation; else the first one's {@code spec.remediation.budget} (set
   * with {@code enabled: false}); else the defaults.
   */
  RemediationBudget budgetOf(List<NodeRef> refs) {
    List<RemediationPolicy> ps =
        refs.stream()
            .map(r -> new NodeSetRef(r.namespace(), r.nodeSet()))
            .distinct()
            .sorted(Comparator.comparing(NodeSetRef::toString))
            .map(policies)
            .filter(Objects::nonNull)
            .toList();
    return ps.stream()
        .filter(RemediationPolicy::enabled)
        .findFirst()
        .or(() -> ps.stream().findFirst())
        .map(RemediationPolicy::budget)
        .orElse(RemediationBudget.defaults());
  }

  /** Where the slurmd pods are bound now, and the cluster limit. */
  BudgetShape shape() {
    List<BudgetShape.Placement> placed = new ArrayList<>();
    for (Pod p : allPods.get()) {
      String set =
          p.getMetadata().getLabels() == null
              ? null
              : p.getMetadata().getLabels().get(PodLabels.NODESET);
      if (set != null && p.getSpec() != null) {
        placed.add(
            new BudgetShape.Placement(
                p.getMetadata().getNamespace() + "/" + set, p.getSpec().getNodeName()));
      }
    }
    return BudgetShape.of(placed, clusterBudget);
  }

  private void ask(String node, Object desired, boolean full) {
    Object inFlight = pending.get(node);
    Object last = inFlight != null ? inFlight : delivered.get(node);
    if ((!full && desired.equals(last)) || (last == null && RELEASE.equals(desired))) {
      return; // unchanged, or a release of nothing this term asked for
    }
    pending.put(node, desired);
    Instant seen = Instant.now();
    String signal = desired instanceof SlotRequest ? Names.SIGNAL_ACQUIRE : Names.SIGNAL_RELEASE;
    Object payload =
        desired instanceof SlotRequest
            ? desired
            : new SlotRelease(node, "healthy again, or no longer there", SlotRequest.DRAIN);
    coalescer.submit(
        "drain:" + node,
        () -> {
          signals.budget(signal, payload);
          delivered.put(node, desired);
          pending.remove(node, desired);
          metrics.signal(signal, "sent");
          metrics.lag("node", Duration.between(seen, Instant.now()));
        },
        () -> {
          pending.remove(node, desired);
          coalescer.later(redeliverAfter, () -> lookAgain.accept(node));
        });
  }

  private static NodeRef ref(Pod p) {
    Map<String, String> l = p.getMetadata().getLabels();
    String set = l == null ? null : l.get(PodLabels.NODESET);
    if (set == null) {
      return null;
    }
    int ordinal;
    try {
      ordinal = Integer.parseInt(l.getOrDefault(PodLabels.ORDINAL, "-1"));
    } catch (NumberFormatException e) {
      ordinal = -1;
    }
    return new NodeRef(p.getMetadata().getNamespace(), set, p.getMetadata().getName(), ordinal);
  }
}
