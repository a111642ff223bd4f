package dev.tandem.devstack.kubelet;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.kube.SharedKubernetes;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The local kubelet's nodes live by their Leases, as a kubelet's do, against the real node
 * lifecycle controller: a registered node that renews its Lease loses the not-ready taint, stays
 * Ready past the controller's grace period and gets a pod from the real scheduler; once the
 * renewals stop, the controller marks it Ready Unknown and taints it unreachable.
 */
class NodeLeasesIT {
  private static final String READY = "Ready";

  @Test
  void aNodeLivesWhileItsLeaseIsRenewedAndIsLostWhenItStops() throws Exception {
    KubeletConfig config =
        new KubeletConfig(
            1,
            "lease-",
            Map.of("cpu", "4", "memory", "8Gi", "pods", "10"),
            null,
            null,
            null,
            Duration.ZERO,
            Duration.ZERO,
            Duration.ofSeconds(10),
            Duration.ofMinutes(1));
    String name = config.nodeName(1);
    try (KubernetesClient client = SharedKubernetes.get().adminClient()) {
      LocalNodes.register(client, config, 0);
      NodeLeases leases = new NodeLeases(client, List.of(name), NodeLeases.RENEW);
      leases.start();
      try {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    !tainted(client.nodes().withName(name).get(), "node.kubernetes.io/not-ready"));
        // Past the controller's grace period (20 s): still Ready, because the Lease is renewed.
        Thread.sleep(30_000);
        Node n = client.nodes().withName(name).get();
        assertEquals("True", ready(n), "Ready while the Lease is renewed");
        assertTrue(!tainted(n, "node.kubernetes.io/unreachable"), "not taken for lost");
        // The real scheduler binds a pod that names no scheduler to the only Ready node.
        client
            .pods()
            .inNamespace("default")
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("scheduled")
                    .endMetadata()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("c")
                    .withImage("busybox")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
        await()
            .atMost(Duration.ofSeconds(60))
            .until(
                () ->
                    name.equals(
                        client
                            .pods()
                            .inNamespace("default")
                            .withName("scheduled")
                            .get()
                            .getSpec()
                            .getNodeName()));
      } finally {
        leases.close();
      }
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> "Unknown".equals(ready(client.nodes().withName(name).get())));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> tainted(client.nodes().withName(name).get(), "node.kubernetes.io/unreachable"));
    }
  }

  private static String ready(Node n) {
    return n.getStatus().getConditions().stream()
        .filter(c -> READY.equals(c.getType()))
        .map(c -> c.getStatus())
        .findFirst()
        .orElse(null);
  }

  private static boolean tainted(Node n, String key) {
    return n.getSpec().getTaints() != null
        && n.getSpec().getTaints().stream().anyMatch(t -> key.equals(t.getKey()));
  }
}
