package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Patches through {@link KubeRefs} are one request: fabric8 7.8 reads the object before a patch by
 * name ({@code withName(n).patch(...)}), which these writes no longer pay for. Counted at the proxy
 * in front of the real API server.
 */
class KubeRefsTest {

  @Test
  void aCordonIsOneReadAndOnePatch() throws Exception {
    String node = "k-cordon-" + UUID.randomUUID().toString().substring(0, 8);
    try (RealApi api = RealApi.start()) {
      api.admin
          .nodes()
          .resource(new NodeBuilder().withNewMetadata().withName(node).endMetadata().build())
          .create();
      try {
        NodeWrites nodes = new NodeWrites(api.proxied);
        long before = api.requests();
        assertTrue(nodes.cordon(node, "test"));
        assertEquals(2, api.requests() - before, "its own read and the patch");
        assertTrue(api.admin.nodes().withName(node).get().getSpec().getUnschedulable());
      } finally {
        api.admin.nodes().withName(node).delete();
      }
    }
  }
}
