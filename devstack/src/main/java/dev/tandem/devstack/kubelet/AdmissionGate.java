package dev.tandem.devstack.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Where the kubelet's sync loop applies {@link Admission}: finds the pods already holding resources
 * on the node, rejects a pod that does not fit (once: one status write, one event) and remembers it
 * until the pod is gone. Used on the kubelet's sync thread only.
 */
final class AdmissionGate {
  private final PodWorker worker;
  private final Function<String, Node> nodes;
  private final Supplier<List<Pod>> pods;
  private final Function<String, String> admittedUid;

  /** Pod key to uid of pods refused at admission. */
  private final Map<String, String> rejected = new HashMap<>();

  /**
   * @param admittedUid the uid of the pod this kubelet runs under a key, or null
   */
  AdmissionGate(
      PodWorker worker,
      Function<String, Node> nodes,
      Supplier<List<Pod>> pods,
      Function<String, String> admittedUid) {
    this.worker = worker;
    this.nodes = nodes;
    this.pods = pods;
    this.admittedUid = admittedUid;
  }

  boolean wasRejected(String key, Pod pod) {
    return pod.getMetadata().getUid().equals(rejected.get(key));
  }

  void forget(String key) {
    rejected.remove(key);
  }

  /** True when the pod may run; false when it was rejected or its node is not known yet. */
  boolean admit(String key, Pod pod) {
    Node node = nodes.apply(pod.getSpec().getNodeName());
    if (node == null) {
      return false; // not seen yet: nothing runs until it is (retried on resync)
    }
    Admission.Rejection r = Admission.check(pod, node, admittedOn(pod));
    if (r == null) {
      return true;
    }
    if (worker.reject(pod, r)) {
      rejected.put(key, pod.getMetadata().getUid());
    }
    return false;
  }

  /** Pods holding resources on {@code pod}'s node: admitted here, or running, and not finished. */
  private List<Pod> admittedOn(Pod pod) {
    List<Pod> out = new ArrayList<>();
    String node = pod.getSpec().getNodeName();
    for (Pod p : pods.get()) {
      if (!node.equals(p.getSpec().getNodeName())
          || p.getMetadata().getUid().equals(pod.getMetadata().getUid())) {
        continue;
      }
      String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
      if ("Succeeded".equals(phase) || "Failed".equals(phase)) {
        continue;
      }
      String uid = p.getMetadata().getUid();
      if ("Running".equals(phase) || uid.equals(admittedUid.apply(Cache.metaNamespaceKeyFunc(p)))) {
        out.add(p);
      }
    }
    return out;
  }
}
