package dev.tandem.activities;

import dev.tandem.k8s.CrdAnchor;
import dev.tandem.k8s.PodFactory;
import dev.tandem.k8s.PodLabels;
import dev.tandem.k8s.PodViews;
import dev.tandem.k8s.api.NodeSet;
import dev.tandem.workflows.activities.KubeActivities;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.PodRequest;
import dev.tandem.workflows.model.PodView;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FieldValidateable;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link KubeActivities} with fabric8. Pods here; NodeSet writes in {@link NodeSetWrites}; events
 * in {@link EventRecorder}. Every method is idempotent: create-if-absent, delete-if-present, write
 * only what changed.
 */
public class KubeActivitiesImpl implements KubeActivities {
  private static final Logger log = LoggerFactory.getLogger(KubeActivitiesImpl.class);

  private final KubernetesClient client;
  private final NodeSetWrites nodeSets;
  private final EventRecorder events;
  private final EvictionLabels evictionLabels;
  private final CrdAnchor anchor;

  public KubeActivitiesImpl(KubernetesClient client, Clock clock) {
    this.client = Objects.requireNonNull(client, "client");
    this.nodeSets = new NodeSetWrites(client, clock);
    this.events = new EventRecorder(client, clock);
    this.evictionLabels = new EvictionLabels(client);
    this.anchor = new CrdAnchor(client, clock);
  }

  @Override
  public PodView getPod(String namespace, String name) {
    Pod p = KubeCalls.call("get pod " + namespace + "/" + name, () -> get(namespace, name));
    return p == null ? PodView.absent(name) : PodViews.of(p);
  }

  @Override
  public PodView ensurePod(PodRequest request) {
    if (request == null || request.node() == null || request.template() == null) {
      throw KubeCalls.rejected("ensurePod needs a node and a template, got " + request);
    }
    String ns = request.node().namespace();
    String name = request.node().pod();
    String what = "create pod " + ns + "/" + name;
    try {
      PodFactory.check(request);
    } catch (IllegalArgumentException e) {
      throw KubeCalls.rejected(what + ": " + e.getMessage());
    }
    // 409 here is "already exists" (a concurrent attempt, or the get raced a create): re-read.
    return KubeCalls.withConflictRetry(
        what,
        () -> {
          Pod existing = get(ns, name);
          if (existing != null) {
            return adopt(existing, request);
          }
          LiveOwner.require(client, request, what);
          Pod pod = PodFactory.build(request, anchorUid(what));
          // Strict: a field this cluster does not know is a typo or a version mismatch in the
          // template; refusing it (400, KubeRejected) beats a pod silently missing the field.
          Pod created;
          try {
            created =
                client
                    .pods()
                    .inNamespace(ns)
                    .resource(pod)
                    .fieldValidation(FieldValidateable.Validation.STRICT)
                    .create();
          } catch (KubernetesClientException e) {
            if (PodRejections.invalid(e)) {
              throw rejectedPod(request, e);
            }
            throw e;
          }
          log.info("created pod {}/{} revision {}", ns, name, request.template().revision());
          return PodViews.of(created);
        });
  }

  /**
   * The cluster refused the pod as invalid: the whole error to the log and to a Warning event on
   * the NodeSet ({@code kubectl describe nodeset}), one line to the workflow.
   */
  private RuntimeException rejectedPod(PodRequest request, KubernetesClientException e) {
    String line = PodRejections.oneLine(e);
    String full = KubeCalls.apiMessage(e);
    log.warn(
        "the cluster rejected pod {}/{} at revision {}: {}",
        request.node().namespace(),
        request.node().pod(),
        request.template().revision(),
        full);
    events.record(
        new EventRequest(
            request.node().namespace(),
            NodeSet.KIND,
            request.node().nodeSet(),
            "Warning",
            "PodRejected",
            "pod "
                + request.node().pod()
                + " at revision "
                + request.template().revision()
                + " rejected: "
                + full));
    return PodRejections.failure(e);
  }

  /**
   * An existing pod of that name: the caller compares revisions. A pod that is not this NodeSet's
   * is refused rather than returned: the caller would otherwise delete it as an old revision.
   */
  private static PodView adopt(Pod existing, PodRequest request) {
    var labels = existing.getMetadata().getLabels();
    String owner = labels == null ? null : labels.get(PodLabels.NODESET);
    if (!request.node().nodeSet().equals(owner)) {
      throw KubeCalls.rejected(
          "pod "
              + request.node().namespace()
              + "/"
              + request.node().pod()
              + " exists but does not belong to NodeSet "
              + request.node().nodeSet()
              + " (label "
              + PodLabels.NODESET
              + "="
              + owner
              + "); delete or rename that pod");
    }
    return PodViews.of(existing);
  }

  /**
   * The anchor's uid, or a retryable failure: no pod is created without its second owner (a pod
   * with only the NodeSet as owner is deleted by the garbage collector, jobs and all, as soon as
   * the NodeSet is deleted with {@code --cascade=foreground}).
   */
  private String anchorUid(String what) {
    try {
      return anchor.uid();
    } catch (CrdAnchor.Unavailable e) {
      throw ApplicationFailure.newFailureWithCause(
          what + ": " + e.getMessage(), KubeCalls.UNAVAILABLE, e);
    }
  }

  @Override
  public PodView deletePod(String namespace, String name, String uid) {
    String what = "delete pod " + namespace + "/" + name;
    return KubeCalls.withConflictRetry(
        what,
        () -> {
          Pod p = get(namespace, name);
          if (p == null) {
            return PodView.absent(name);
          }
          if (uid != null && !uid.equals(p.getMetadata().getUid())) {
            // Another pod now has the name (already replaced): not the one to delete.
            return PodViews.of(p);
          }
          if (p.getMetadata().getDeletionTimestamp() != null) {
            return PodViews.of(p);
          }
          /*
           * fabric8 has no DSL for a uid precondition; a resourceVersion precondition is stronger
           * (a resourceVersion names one version of one object, so it implies the uid checked
           * above). If the pod changed since the read, the API answers 409 and we re-read.
           */
          try {
            client
                .pods()
                .inNamespace(namespace)
                .withName(name)
                .lockResourceVersion(p.getMetadata().getResourceVersion())
                .delete();
          } catch (KubernetesClientException e) {
            if (!KubeCalls.is(e, 404)) {
              throw e;
            }
          }
          log.info("deleted pod {}/{} uid {}", namespace, name, p.getMetadata().getUid());
          Pod after = get(namespace, name);
          return after == null ? PodView.absent(name) : PodViews.of(after);
        });
  }

  @Override
  public void markEvictable(String namespace, String name, String uid, boolean evictable) {
    evictionLabels.mark(namespace, name, uid, evictable);
  }

  @Override
  public List<PodView> listPods(String namespace, String nodeSet) {
    List<Pod> pods =
        KubeCalls.call(
            "list pods of NodeSet " + namespace + "/" + nodeSet,
            () ->
                client
                    .pods()
                    .inNamespace(namespace)
                    .withLabel(PodLabels.NODESET, nodeSet)
                    .list()
                    .getItems());
    // The equality selector is what the API filters on; filtering again costs nothing and keeps
    // a server that mishandles selectors from handing us another NodeSet's pods.
    return pods.stream()
        .filter(p -> p.getMetadata().getLabels() != null)
        .filter(p -> nodeSet.equals(p.getMetadata().getLabels().get(PodLabels.NODESET)))
        .sorted(
            Comparator.comparingInt(PodViews::ordinal)
                .thenComparing(p -> p.getMetadata().getName()))
        .map(PodViews::of)
        .collect(Collectors.toList());
  }

  @Override
  public Map<String, String> nodeLabelValues(String key, List<String> k8sNodes) {
    if (key == null || k8sNodes == null || k8sNodes.isEmpty()) {
      return Map.of();
    }
    // One list of the labelled nodes, not a read per node: a rollout asks on every pass.
    List<Node> nodes =
        KubeCalls.call(
            "list nodes labelled " + key, () -> client.nodes().withLabel(key).list().getItems());
    Set<String> wanted = new HashSet<>(k8sNodes);
    Map<String, String> out = new TreeMap<>();
    for (Node n : nodes) {
      Map<String, String> labels = n.getMetadata().getLabels();
      String name = n.getMetadata().getName();
      // Filtered again: a server that mishandles selectors must not invent a domain.
      if (labels != null && labels.get(key) != null && wanted.contains(name)) {
        out.put(name, labels.get(key));
      }
    }
    return out;
  }

  @Override
  public void writeNodeSetStatus(NodeSetRef ref, NodeSetStatusView status) {
    nodeSets.writeStatus(ref, status);
  }

  @Override
  public void setNodeSetReplicas(NodeSetRef ref, String uid, int replicas) {
    nodeSets.setReplicas(ref, uid, replicas);
  }

  @Override
  public void releaseNodeSet(NodeSetRef ref) {
    nodeSets.release(ref);
  }

  @Override
  public void recordEvent(EventRequest event) {
    events.record(event);
  }

  private Pod get(String namespace, String name) {
    return client.pods().inNamespace(namespace).withName(name).get();
  }
}
