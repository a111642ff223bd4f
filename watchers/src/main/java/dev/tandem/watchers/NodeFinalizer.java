package dev.tandem.watchers;

import dev.tandem.k8s.FinalizerPatch;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.SlurmNodeView;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tandem's finalizer on the Kubernetes Nodes that host slurmd pods: deleting such a Node ({@code
 * kubectl delete node}, a cloud provider's node controller, remediation's replace) waits until no
 * Slurm job runs there (docs/concepts.md, "Deleting a Kubernetes node"). Without it the Node object
 * goes at once, the pod garbage collector force-deletes the pods bound to it 40 s later, and the
 * kubelet kills their slurmd with the jobs under it.
 *
 * <ol>
 *   <li>A Node that hosts a slurmd pod and is not being deleted gets {@link #FINALIZER}; one that
 *       hosts none loses it, so a Node that Tandem's pods left (a finished {@code kubectl drain})
 *       is deleted at once.
 *   <li>A Node being deleted counts as cordoned ({@link K8sNodeWatcher#cordonReason}): the Slurm
 *       nodes of its pods are drained and take no new job.
 *   <li>It loses the finalizer once the Slurm watcher's latest view of every slurmd pod on it says
 *       no job runs there ({@link #noJobs}): drained and idle, down, or unknown to Slurm. A pod
 *       without a view yet holds it (fail closed). While held, it is looked at again every {@link
 *       #RECHECK}.
 *   <li>Each write is one JSON patch of the whole finalizer list, conditional on the
 *       resourceVersion in the informer's cache: a conflict (another controller's finalizer) waits
 *       for the newer version, which is looked at again. The API server refuses new finalizers on
 *       an object being deleted, so a Node deleted before this watcher saw its pod is not held; its
 *       Slurm nodes are still drained (step 2).
 * </ol>
 */
final class NodeFinalizer {
  private static final Logger log = LoggerFactory.getLogger(NodeFinalizer.class);

  /** The finalizer on Kubernetes Nodes that host slurmd pods. */
  static final String FINALIZER = Names.PREFIX + "slurm-jobs";

  /** How often a held Node being deleted is looked at again. */
  static final Duration RECHECK = Duration.ofSeconds(5);

  private final KubernetesClient client;
  private final Function<String, List<Pod>> podsOn;
  private final Function<String, Node> nodes;
  private final Function<String, SlurmNodeView> slurm;
  private final Coalescer coalescer;
  private final WatcherMetrics metrics;
  private final Set<String> rechecking = ConcurrentHashMap.newKeySet();

  /**
   * @param podsOn the slurmd pods bound to a Kubernetes node ({@link PodWatcher#podsOn})
   * @param nodes a Node from the informer's cache by name, or null
   * @param slurm the Slurm watcher's latest view of a Slurm node by name, or null
   */
  NodeFinalizer(
      KubernetesClient client,
      Function<String, List<Pod>> podsOn,
      Function<String, Node> nodes,
      Function<String, SlurmNodeView> slurm,
      Coalescer coalescer,
      WatcherMetrics metrics) {
    this.client = client;
    this.podsOn = podsOn;
    this.nodes = nodes;
    this.slurm = slurm;
    this.coalescer = coalescer;
    this.metrics = metrics;
  }

  /** Adds, keeps or removes the finalizer as the Node and its pods call for. */
  void observe(Node n) {
    String name = n.getMetadata().getName();
    boolean held = finalizers(n).contains(FINALIZER);
    List<Pod> on = podsOn.apply(name);
    if (n.getMetadata().getDeletionTimestamp() == null) {
      if (held == on.isEmpty()) {
        write(name, !on.isEmpty());
      }
      return;
    }
    if (!held) {
      return;
    }
    List<String> busy = new ArrayList<>();
    for (Pod p : on) {
      if (!noJobs(slurm.apply(p.getMetadata().getName()))) {
        busy.add(p.getMetadata().getName());
      }
    }
    if (busy.isEmpty()) {
      write(name, false);
    } else if (rechecking.add(name)) {
      log.debug("Node {} is being deleted; jobs may still run on {}", name, busy);
      coalescer.later(
          RECHECK,
          () -> {
            rechecking.remove(name);
            Node cur = nodes.apply(name);
            if (cur != null) {
              observe(cur);
            }
          });
    }
  }

  /**
   * No job can run on this Slurm node: it is drained and idle (not completing), down, or unknown to
   * Slurm. No view at all is not known to be idle.
   */
  static boolean noJobs(SlurmNodeView v) {
    if (v == null) {
      return false;
    }
    if (!v.known() || v.down() || "future".equals(v.state())) {
      return true;
    }
    return v.drainFlag() && "idle".equals(v.state()) && !v.flags().contains("COMPLETING");
  }

  private static List<String> finalizers(Node n) {
    List<String> f = n.getMetadata().getFinalizers();
    return f == null ? List.of() : f;
  }

  /** Sets or clears the finalizer on the cached Node, if it still calls for it. */
  private void write(String name, boolean hold) {
    coalescer.submit(
        "finalizer:" + name,
        () -> {
          Node cur = nodes.apply(name);
          if (cur == null) {
            return;
          }
          List<String> now = finalizers(cur);
          if (now.contains(FINALIZER) == hold) {
            return;
          }
          List<String> next = new ArrayList<>(now);
          if (hold) {
            next.add(FINALIZER);
          } else {
            next.removeIf(FINALIZER::equals);
          }
          try {
            client
                .nodes()
                .resource(cur)
                .patch(
                    PatchContext.of(PatchType.JSON),
                    FinalizerPatch.of(cur.getMetadata().getResourceVersion(), next));
          } catch (KubernetesClientException e) {
            if (e.getCode() == 404 || e.getCode() == 409) {
              return; // gone, or changed: the informer brings the newer version
            }
            throw e;
          }
          metrics.event("node", hold ? "finalizer-added" : "finalizer-removed");
          if (!hold && cur.getMetadata().getDeletionTimestamp() != null) {
            log.info("Node {} is being deleted and no Slurm job runs on it: released it", name);
          }
        });
  }
}
