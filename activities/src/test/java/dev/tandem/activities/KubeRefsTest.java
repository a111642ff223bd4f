package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.Test;

/**
 * Patches through {@link KubeRefs} are one request: fabric8 7.8 reads the object before a patch by
 * name ({@code withName(n).patch(...)}), which these writes no longer pay for. (The condition at
 * bind, a strategic merge patch the fabric8 mock refuses, is checked against the local API in
 * devstack's {@code PodPlacementActivitiesTest}.)
 */
@EnableKubernetesMockClient(crud = true)
class KubeRefsTest {
  static KubernetesMockServer server;
  static KubernetesClient client;

  @Test
  void aCordonIsOneReadAndOnePatch() throws InterruptedException {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("k-cordon").endMetadata().build())
        .create();
    NodeWrites nodes = new NodeWrites(client);
    int before = server.getRequestCount();
    assertTrue(nodes.cordon("k-cordon", "test"));
    assertEquals(2, server.getRequestCount() - before, "its own read and the patch");
    assertEquals("PATCH", server.getLastRequest().getMethod());
    assertTrue(client.nodes().withName("k-cordon").get().getSpec().getUnschedulable());
  }
}
