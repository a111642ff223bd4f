package dev.tandem.devstack.kubelet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plays the default scheduler for pods whose {@code schedulerName} is empty or {@code
 * default-scheduler}: picks one of the kubelet's nodes with {@link NodeFit} and binds through the
 * {@code pods/{name}/binding} subresource, exactly what kube-scheduler does. Pods for another
 * scheduler ({@code tandem-slurm}) are left alone. A pod that fits nowhere gets {@code
 * PodScheduled=False/Unschedulable} with the reason, and is retried on node changes and resyncs.
 *
 * <p>Like kube-scheduler's cache, a pod it has just bound is <em>assumed</em> on its node until the
 * pod cache shows the binding: two pods scheduled a few milliseconds apart must not both see the
 * same empty node (before, two slurmd pods of one NodeSet could land on one node when created
 * together, which no real cluster does).
 */
final class Scheduler {
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

  static final String DEFAULT = "default-scheduler";

  private final KubernetesClient client;
  private final Set<String> myNodes;
  private final Supplier<List<Node>> nodes;
  private final Supplier<List<Pod>> pods;

  /** Pods bound by this scheduler that the pod cache does not show bound yet, by uid. */
  private final Map<String, Pod> assumed = new java.util.concurrent.ConcurrentHashMap<>();

  Scheduler(
      KubernetesClient client,
      Set<String> myNodes,
      Supplier<List<Node>> nodes,
      Supplier<List<Pod>> pods) {
    this.client = client;
    this.myNodes = myNodes;
    this.nodes = nodes;
    this.pods = pods;
  }

  static boolean isOurs(Pod pod) {
    String s = pod.getSpec().getSchedulerName();
    return s == null || s.isEmpty() || DEFAULT.equals(s);
  }

  static boolean needsScheduling(Pod pod) {
    String node = pod.getSpec().getNodeName();
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return (node == null || node.isEmpty())
        && pod.getMetadata().getDeletionTimestamp() == null
        && !"Succeeded".equals(phase)
        && !"Failed".equals(phase)
        && isOurs(pod);
  }

  /** Tries to place the pod; returns the node it was bound to, or null. */
  String schedule(Pod pod) {
    List<Node> candidates = new ArrayList<>();
    for (Node n : nodes.get()) {
      if (myNodes.contains(n.getMetadata().getName())) {
        candidates.add(n);
      }
    }
    Map<String, List<Pod>> byNode = new HashMap<>();
    List<Pod> cached = pods.get();
    Map<String, Pod> stillAssumed = new HashMap<>();
    Map<String, Pod> byUid = new HashMap<>();
    cached.forEach(p -> byUid.put(p.getMetadata().getUid(), p));
    for (Map.Entry<String, Pod> a : assumed.entrySet()) {
      Pod seen = byUid.get(a.getKey());
      if (seen == null || !isBlank(seen.getSpec().getNodeName())) {
        assumed.remove(a.getKey()); // gone, or the cache shows it bound now
      } else {
        stillAssumed.put(a.getKey(), a.getValue());
      }
    }
    List<Pod> all = new ArrayList<>(cached);
    all.addAll(stillAssumed.values());
    for (Pod p : all) {
      String n = p.getSpec().getNodeName();
      String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
      if (n != null && !n.isEmpty() && !"Succeeded".equals(phase) && !"Failed".equals(phase)) {
        byNode.computeIfAbsent(n, k -> new ArrayList<>()).add(p);
      }
    }
    NodeFit.Decision d = NodeFit.choose(pod, candidates, byNode);
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    if (d.node() == null) {
      markUnschedulable(pod, d.message());
      return null;
    }
    Map<String, Object> binding =
        Map.of(
            "apiVersion",
            "v1",
            "kind",
            "Binding",
            "metadata",
            Map.of("name", name, "namespace", ns, "uid", pod.getMetadata().getUid()),
            "target",
            Map.of("apiVersion", "v1", "kind", "Node", "name", d.node()));
    try {
      client.raw("/api/v1/namespaces/" + ns + "/pods/" + name + "/binding", "POST", binding);
      log.info("bound pod {}/{} to {}", ns, name, d.node());
      assume(pod, d.node());
      return d.node();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409 || e.getCode() == 404) {
        log.debug("binding {}/{} lost a race: {}", ns, name, e.getMessage());
        return null;
      }
      throw e;
    }
  }

  private void assume(Pod pod, String node) {
    Pod copy =
        new io.fabric8.kubernetes.api.model.PodBuilder(pod)
            .editSpec()
            .withNodeName(node)
            .endSpec()
            .build();
    assumed.put(pod.getMetadata().getUid(), copy);
  }

  private static boolean isBlank(String s) {
    return s == null || s.isEmpty();
  }

  private void markUnschedulable(Pod pod, String message) {
    if (pod.getStatus() != null && pod.getStatus().getConditions() != null) {
      for (PodCondition c : pod.getStatus().getConditions()) {
        if ("PodScheduled".equals(c.getType())
            && "False".equals(c.getStatus())
            && message.equals(c.getMessage())) {
          return;
        }
      }
    }
    String patch =
        PodStatuses.MAPPER
            .createObjectNode()
            .set(
                "status",
                PodStatuses.MAPPER
                    .createObjectNode()
                    .set(
                        "conditions",
                        PodStatuses.MAPPER
                            .createArrayNode()
                            .add(
                                PodStatuses.MAPPER
                                    .createObjectNode()
                                    .put("type", "PodScheduled")
                                    .put("status", "False")
                                    .put("reason", "Unschedulable")
                                    .put("message", message)
                                    .putNull("lastProbeTime")
                                    .put(
                                        "lastTransitionTime",
                                        PodStatuses.ts(java.time.Instant.now())))))
            .toString();
    try {
      client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .subresource("status")
          .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
      log.info(
          "pod {}/{} is unschedulable: {}",
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          message);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }
}
