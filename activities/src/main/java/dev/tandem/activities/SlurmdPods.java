package dev.tandem.activities;

import dev.tandem.k8s.PodLabels;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps a Slurm node to the Kubernetes node that hosts it. A slurmd pod is named after its Slurm
 * node and labelled {@code tandem.dev/nodeset}; NodeSets may live in any namespace. Only a pod that
 * is Running, not being deleted and bound counts: during a rolling update the old pod (terminating)
 * and the new one (pending) may both exist, and neither serves the Slurm node then. Two serving
 * pods on different Kubernetes nodes (two NodeSets claiming one Slurm name) give no answer rather
 * than a guess.
 */
final class SlurmdPods {
  private static final Logger log = LoggerFactory.getLogger(SlurmdPods.class);

  private final KubernetesClient client;

  SlurmdPods(KubernetesClient client) {
    this.client = client;
  }

  String k8sNodeOf(String slurmNode) {
    if (slurmNode == null || slurmNode.isBlank()) {
      return null;
    }
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
    Set<String> nodes =
        pods.stream()
            .filter(p -> slurmNode.equals(p.getMetadata().getName()))
            .filter(p -> p.getMetadata().getLabels() != null)
            .filter(p -> p.getMetadata().getLabels().containsKey(PodLabels.NODESET))
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
            .filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
            .map(p -> p.getSpec() == null ? null : p.getSpec().getNodeName())
            .filter(n -> n != null && !n.isEmpty())
            .collect(Collectors.toSet());
    if (nodes.size() > 1) {
      log.warn(
          "Slurm node {} is served by slurmd pods on several Kubernetes nodes {}; not mapping it",
          slurmNode,
          nodes);
      return null;
    }
    return nodes.isEmpty() ? null : nodes.iterator().next();
  }
}
