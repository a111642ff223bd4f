package dev.tandem.activities;

import dev.tandem.k8s.PodLabels;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps a Slurm node to the Kubernetes node that hosts it. A slurmd pod is named after its Slurm
 * node and labelled {@code tandem.dev/nodeset}; NodeSets may live in any namespace. Only a pod that
 * is Running, not being deleted and bound counts: during a rolling update the old pod (terminating)
 * and the new one (pending) may both exist, and neither serves the Slurm node then.
 *
 * <ol>
 *   <li>Where the Slurm node's pod was found before (this worker remembers the namespace), GET it
 *       there: one read of one object, fresh from the API server. A serving pod answers.
 *   <li>Otherwise (first time, the pod gone or not serving there) LIST the labelled pods of that
 *       name in every namespace, as before this memo: on a real API server a label-selected LIST of
 *       all namespaces reads every pod of the cluster, which a bind per pod must not cost. Two
 *       serving pods on different Kubernetes nodes (two NodeSets claiming one Slurm name) give no
 *       answer rather than a guess; one gives its node and its namespace is remembered.
 * </ol>
 *
 * <p>The memo only says where to look; the answer is always a fresh read. What it gives up: a
 * second NodeSet claiming the same Slurm name in another namespace, created after the first was
 * found, is not noticed until the first stops serving (docs/scheduling.md, "Limits").
 */
final class SlurmdPods {
  private static final Logger log = LoggerFactory.getLogger(SlurmdPods.class);

  /** A bound that keeps the memo small whatever the fleet: Slurm node names are short. */
  static final int MEMO_LIMIT = 100_000;

  private final KubernetesClient client;
  private final Map<String, String> namespaceOf = new ConcurrentHashMap<>();

  SlurmdPods(KubernetesClient client) {
    this.client = client;
  }

  String k8sNodeOf(String slurmNode) {
    if (slurmNode == null || slurmNode.isBlank()) {
      return null;
    }
    String ns = namespaceOf.get(slurmNode);
    if (ns != null) {
      Pod p =
          KubeCalls.call(
              "read the slurmd pod " + ns + "/" + slurmNode,
              () -> client.pods().inNamespace(ns).withName(slurmNode).get());
      if (p != null && serving(p, slurmNode)) {
        return p.getSpec().getNodeName();
      }
    }
    return listed(slurmNode);
  }

  private String listed(String slurmNode) {
    List<Pod> pods =
        KubeCalls.call(
            "find the slurmd pod of Slurm node " + slurmNode,
            () ->
                client
                    .pods()
                    .inAnyNamespace()
                    .withLabel(PodLabels.NODESET)
                    .withField("metadata.name", slurmNode)
                    .list()
                    .getItems());
    // The API filters already; filtering again keeps a lax server from handing us other pods.
    List<Pod> serving = pods.stream().filter(p -> serving(p, slurmNode)).toList();
    Set<String> nodes =
        serving.stream().map(p -> p.getSpec().getNodeName()).collect(Collectors.toSet());
    if (nodes.size() > 1) {
      log.warn(
          "Slurm node {} is served by slurmd pods on several Kubernetes nodes {}; not mapping it",
          slurmNode,
          nodes);
      namespaceOf.remove(slurmNode);
      return null;
    }
    if (nodes.isEmpty()) {
      return null;
    }
    if (namespaceOf.size() < MEMO_LIMIT) {
      namespaceOf.put(slurmNode, serving.get(0).getMetadata().getNamespace());
    }
    return nodes.iterator().next();
  }

  private static boolean serving(Pod p, String slurmNode) {
    return slurmNode.equals(p.getMetadata().getName())
        && p.getMetadata().getLabels() != null
        && p.getMetadata().getLabels().containsKey(PodLabels.NODESET)
        && p.getMetadata().getDeletionTimestamp() == null
        && p.getStatus() != null
        && "Running".equals(p.getStatus().getPhase())
        && p.getSpec() != null
        && p.getSpec().getNodeName() != null
        && !p.getSpec().getNodeName().isEmpty();
  }
}
