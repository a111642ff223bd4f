package dev.tandem.watchers;

import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.NodeSetSpecs;
import dev.tandem.k8s.api.NodeSet;
import dev.tandem.workflows.model.DrainCause;
import dev.tandem.workflows.model.NodeCommand;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Feeds NodeSet custom resources to their workflows: {@code specChanged} (signal-with-start) when
 * one appears or changes, {@code delete} when it is being deleted.
 *
 * <p>NodeSets are watched as generic resources: a NodeSet the Java classes cannot read (possible
 * where the API server does not validate) would stop a typed informer for every NodeSet; this way
 * it only becomes an InvalidSpec condition on itself. Before its first signal a NodeSet gets
 * Tandem's finalizer, so that deleting it waits until its nodes are drained and gone.
 */
public final class NodeSetWatcher implements AutoCloseable {
  private final KubernetesClient client;
  private final Coalescer coalescer;
  private final WorkflowSignals signals;
  private final WatcherMetrics metrics;
  private final Duration resync;
  private SharedIndexInformer<GenericKubernetesResource> informer;

  public NodeSetWatcher(
      KubernetesClient client,
      Coalescer coalescer,
      WorkflowSignals signals,
      WatcherMetrics metrics,
      Duration resync) {
    this.client = client;
    this.coalescer = coalescer;
    this.signals = signals;
    this.metrics = metrics;
    this.resync = resync;
  }

  public void start() {
    informer =
        NodeSetResources.generic(client)
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(GenericKubernetesResource r) {
                    metrics.event("nodeset", "add");
                    changed(r);
                  }

                  @Override
                  public void onUpdate(GenericKubernetesResource old, GenericKubernetesResource r) {
                    metrics.event("nodeset", "update");
                    // Status writes (Tandem's own) change only the resourceVersion: skip them.
                    // A periodic resync (same resourceVersion) re-sends, repairing lost signals.
                    boolean resyncPass =
                        Objects.equals(
                            old.getMetadata().getResourceVersion(),
                            r.getMetadata().getResourceVersion());
                    if (resyncPass || !sameIntent(old, r)) {
                      changed(r);
                    }
                  }

                  @Override
                  public void onDelete(GenericKubernetesResource r, boolean unknownFinalState) {
                    metrics.event("nodeset", "delete");
                    NodeSetRef ref = ref(r);
                    coalescer.submit(
                        key(ref),
                        () -> {
                          signals.nodeSetGone(ref, deleteCommand());
                          metrics.signal("delete", "sent");
                        });
                  }
                },
                resync.toMillis());
  }

  public boolean synced() {
    return informer != null && informer.hasSynced();
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
            signals.nodeSetSpec(ref, spec);
            metrics.signal("specChanged", "sent");
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
      NodeSetResources.generic(client)
          .inNamespace(r.getMetadata().getNamespace())
          .withName(r.getMetadata().getName())
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

  /** False once the informer has stopped for good (the supervisor then restarts it). */
  public boolean running() {
    return informer != null && informer.isRunning();
  }

  @Override
  public void close() {
    if (informer != null) {
      informer.close();
      informer = null;
    }
  }
}
