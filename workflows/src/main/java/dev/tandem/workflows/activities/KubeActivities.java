package dev.tandem.workflows.activities;

import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.PodRequest;
import dev.tandem.workflows.model.PodView;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;
import java.util.Map;

/**
 * Kubernetes side of the node lifecycle. Implemented with fabric8 in {@code activities}.
 *
 * <p>Every method is idempotent: running it again after a crash changes nothing more. Conflicts
 * (409) are retried inside; failures that retrying cannot fix are thrown as non-retryable
 * application failures of type {@link #REJECTED}.
 */
@ActivityInterface(namePrefix = "Kube")
public interface KubeActivities {

  /** Failure type for requests Kubernetes refuses for good (invalid pod template, forbidden). */
  String REJECTED = "KubeRejected";

  /**
   * Failure type of {@link #ensurePod} when the API server refuses the pod as invalid (400, 422): a
   * field this cluster does not know, or a value it does not accept. Non-retryable: the same
   * template is refused again. The message is one line naming the field and why.
   */
  String POD_REJECTED = "KubePodRejected";

  /** The pod, or {@link PodView#absent} if there is none. */
  @ActivityMethod
  PodView getPod(String namespace, String name);

  /**
   * Creates the pod if no pod of that name exists and returns the pod that exists afterwards (which
   * may be an older one: the caller compares revisions). A pod the cluster refuses as invalid fails
   * with {@link #POD_REJECTED}.
   */
  @ActivityMethod
  PodView ensurePod(PodRequest request);

  /**
   * Deletes the pod if present (only the one with {@code uid} when it is not null) and returns what
   * is left: absent, or terminating.
   */
  @ActivityMethod
  PodView deletePod(String namespace, String name, String uid);

  /**
   * Sets ({@code evictable} true) or removes the pod's label {@code tandem.dev/evictable=true},
   * which takes it out of its NodeSet's PodDisruptionBudget. Only on the pod with {@code uid}: an
   * absent pod, or another pod of that name, is done (a new pod is created without the label).
   */
  @ActivityMethod
  void markEvictable(String namespace, String name, String uid, boolean evictable);

  /** The NodeSet's pods (label {@code tandem.dev/nodeset}), for adoption after a restart. */
  @ActivityMethod
  List<PodView> listPods(String namespace, String nodeSet);

  /** Writes the NodeSet's status subresource; absent NodeSet is not an error. */
  @ActivityMethod
  void writeNodeSetStatus(NodeSetRef ref, NodeSetStatusView status);

  /**
   * Sets {@code spec.replicas} of the NodeSet with this uid (its autoscaler's count); a NodeSet
   * gone, being deleted or of another uid is left alone.
   */
  @ActivityMethod
  void setNodeSetReplicas(NodeSetRef ref, String uid, int replicas);

  /** Removes Tandem's finalizer from a NodeSet being deleted; absent NodeSet is not an error. */
  @ActivityMethod
  void releaseNodeSet(NodeSetRef ref);

  /**
   * The value of label {@code key} on each of {@code k8sNodes} that exists and carries it (a node
   * without the label, or gone, is absent from the answer): the topology domains of a rolling
   * update by {@code topologyKey}.
   */
  @ActivityMethod
  Map<String, String> nodeLabelValues(String key, List<String> k8sNodes);

  /** Records a Kubernetes Event (best effort: never fails the caller). */
  @ActivityMethod
  void recordEvent(EventRequest event);
}
