package dev.tandem.watchers;

import dev.tandem.k8s.CrdAnchor;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.NodeSetSpecs;
import dev.tandem.k8s.api.NodeSet;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.remediation.RemediationPolicy;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds NodeSet custom resources to their workflows: {@code specChanged} (signal-with-start) when
 * one appears or changes, {@code delete} when it is being deleted.
 *
 * <p>NodeSets are watched as generic resources: a NodeSet the Java classes cannot read (possible
 * where the API server does not validate) would stop a typed informer for every NodeSet; this way
 * it only becomes an InvalidSpec condition on itself. Before its first signal a NodeSet gets
 * Tandem's finalizer, so that deleting it waits until its nodes are drained and gone, and its
 * PodDisruptionBudget ({@link SlurmJobsBudget}), ensured on every event and resync and repaired at
 * once when someone edits or deletes it ({@link BudgetWatcher}).
 */
public final class NodeSetWatcher extends InformerWatcher<GenericKubernetesResource> {
  private static final Logger log = LoggerFactory.getLogger(NodeSetWatcher.class);
  private final KubernetesClient client;
  private final Coalescer coalescer;
  private final WorkflowSignals signals;
  private final WatcherMetrics metrics;
  private final Duration resync;
  private final SlurmJobsBudget budget;
  private volatile Consumer<NodeSetRef> onSpecSent = ref -> {};
  private final NodeSetPolicies policies = new NodeSetPolicies();
  private final AutoscaledNodeSets autoscaled = new AutoscaledNodeSets(NodeSetSpecs::toView);

  public NodeSetWatcher(
      KubernetesClient client,
      Coalescer coalescer,
      WorkflowSignals signals,
      WatcherMetrics metrics,
      Duration resync) {
    this(client, coalescer, signals, metrics, resync, new CrdAnchor(client, Clock.systemUTC()));
  }

  /** The same, reading the CRD's uid through {@code anchor} (shared with the pod watcher's). */
  public NodeSetWatcher(
      KubernetesClient client,
      Coalescer coalescer,
      WorkflowSignals signals,
      WatcherMetrics metrics,
      Duration resync,
      CrdAnchor anchor) {
    super("nodeset", metrics);
    this.client = client;
    this.coalescer = coalescer;
    this.signals = signals;
    this.metrics = metrics;
    this.resync = resync;
    this.budget = new SlurmJobsBudget(client, anchor);
  }

  /** Told after a spec signal was accepted (its workflow runs now). */
  public void onSpecSent(Consumer<NodeSetRef> c) {
    this.onSpecSent = c;
  }

  /**
   * Told (on the informer's thread: must not block) when a NodeSet's remediation policy changes,
   * appears or goes.
   */
  public void onPolicyChanged(Consumer<NodeSetRef> c) {
    policies.onChanged(c);
  }

  /**
   * The remediation policy of a NodeSet in the cache, from its last valid spec (an invalid spec
   * leaves the last valid one in force, as in its workflow); disabled when unknown or deleting.
   */
  public RemediationPolicy policy(NodeSetRef ref) {
    return policies.policy(ref);
  }

  @Override
  protected SharedIndexInformer<GenericKubernetesResource> newInformer() {
    return NodeSetResources.generic(client).inAnyNamespace().runnableInformer(resync.toMillis());
  }

  @Override
  protected void onAdd(GenericKubernetesResource r) {
    policies.note(r);
    changed(r);
  }

  @Override
  protected void onUpdate(
      GenericKubernetesResource old, GenericKubernetesResource r, boolean resyncPass) {
    // Status writes (Tandem's own) change only the resourceVersion: skip them. A periodic resync
    // (same resourceVersion) re-sends, repairing lost signals.
    if (resyncPass || !sameIntent(old, r)) {
      policies.note(r);
      changed(r);
    }
  }

  @Override
  protected void onDelete(GenericKubernetesResource r, boolean unknownFinalState) {
    NodeSetRef ref = ref(r);
    policies.forget(ref);
    coalescer.submit(
        key(ref),
        () -> {
          signals.nodeSetGone(ref, deleteCommand());
          metrics.signal("delete", "sent");
        });
  }

  /** The NodeSets in the cache (their workflows are {@code nodeset/<ns>/<name>}). */
  public List<NodeSetRef> known() {
    SharedIndexInformer<GenericKubernetesResource> informer = informer();
    if (informer == null) {
      return List.of();
    }
    return informer.getStore().list().stream().map(NodeSetWatcher::ref).toList();
  }

  /**
   * The autoscaled NodeSets in the cache that are not being deleted, with the view of the spec in
   * force ({@link AutoscaledNodeSets}); for the {@link DemandFeed}, on the poller's thread.
   */
  Map<NodeSetRef, NodeSetSpecView> autoscaled() {
    SharedIndexInformer<GenericKubernetesResource> informer = informer();
    return autoscaled.of(informer == null ? List.of() : informer.getStore().list());
  }

  private void changed(GenericKubernetesResource r) {
    NodeSetRef ref = ref(r);
    boolean deleting = r.getMetadata().getDeletionTimestamp() != null;
    Instant seen = Instant.now();
    coalescer.submit(
        key(ref),
        () -> {
          NodeSetSpecView spec = NodeSetSpecs.toView(r);
          if (deleting) {
            signals.nodeSetDelete(ref, spec, deleteCommand());
            metrics.signal("delete", "sent");
          } else {
            ensureFinalizer(r);
            ensureBudget(r);
            signals.nodeSetSpec(ref, spec);
            metrics.signal("specChanged", "sent");
            onSpecSent.accept(ref);
          }
          metrics.lag("nodeset", Duration.between(seen, Instant.now()));
        });
  }

  /** Adds Tandem's finalizer with a JSON patch guarded by the resourceVersion it was read at. */
  private void ensureFinalizer(GenericKubernetesResource r) {
    List<String> finalizers = r.getMetadata().getFinalizers();
    if (finalizers != null && finalizers.contains(NodeSet.FINALIZER)) {
      return;
    }
    String op =
        finalizers == null || finalizers.isEmpty()
            ? "{\"op\":\"add\",\"path\":\"/metadata/finalizers\",\"value\":[\""
                + NodeSet.FINALIZER
                + "\"]}"
            : "{\"op\":\"add\",\"path\":\"/metadata/finalizers/-\",\"value\":\""
                + NodeSet.FINALIZER
                + "\"}";
    String patch =
        "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\""
            + r.getMetadata().getResourceVersion()
            + "\"},"
            + op
            + "]";
    try {
      // Through the object read, not by name: fabric8 7.8 reads an object again before a patch by
      // name; the patch's resourceVersion test guards it.
      NodeSetResources.generic(client)
          .inNamespace(r.getMetadata().getNamespace())
          .resource(r)
          .patch(PatchContext.of(PatchType.JSON), patch);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return; // gone already
      }
      if (e.getCode() == 409 || e.getCode() == 422) {
        // Changed since we read it: the informer delivers the newer version and we come back.
        return;
      }
      throw e;
    }
  }

  /**
   * Someone edited or deleted the budget of this NodeSet ({@link BudgetWatcher}): ensured again
   * from the cached NodeSet, unless it is gone or being deleted (its budget then goes with it).
   */
  void budgetTouched(NodeSetRef ref) {
    SharedIndexInformer<GenericKubernetesResource> informer = informer();
    GenericKubernetesResource r =
        informer == null ? null : informer.getStore().getByKey(ref.namespace() + "/" + ref.name());
    if (r == null || r.getMetadata().getDeletionTimestamp() != null) {
      return;
    }
    coalescer.submit("budget:" + ref, () -> ensureBudget(r));
  }

  /**
   * The NodeSet's PodDisruptionBudget ({@link SlurmJobsBudget}). A failure (no RBAC for budgets, an
   * outage) must not hold back the spec: it is logged and tried again on the next event or resync.
   */
  private void ensureBudget(GenericKubernetesResource r) {
    try {
      budget.ensure(r);
    } catch (KubernetesClientException e) {
      log.warn(
          "cannot ensure PodDisruptionBudget of NodeSet {}/{} (running Slurm jobs are not"
              + " protected from evictions): {}",
          r.getMetadata().getNamespace(),
          r.getMetadata().getName(),
          e.getMessage());
    }
  }

  /** Same spec generation, same deletion state, same finalizers: nothing for the workflow. */
  static boolean sameIntent(GenericKubernetesResource a, GenericKubernetesResource b) {
    return Objects.equals(a.getMetadata().getGeneration(), b.getMetadata().getGeneration())
        && Objects.equals(
            a.getMetadata().getDeletionTimestamp(), b.getMetadata().getDeletionTimestamp())
        && Objects.equals(a.getMetadata().getFinalizers(), b.getMetadata().getFinalizers())
        && Objects.equals(a.get("spec"), b.get("spec"));
  }

  private static NodeCommand deleteCommand() {
    return NodeCommand.of(DrainCause.SCALE_DOWN, "NodeSet deleted");
  }

  private static NodeSetRef ref(GenericKubernetesResource r) {
    return new NodeSetRef(r.getMetadata().getNamespace(), r.getMetadata().getName());
  }

  private static String key(NodeSetRef ref) {
    return "nodeset:" + ref;
  }
}
