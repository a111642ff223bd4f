package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What remediation relies on for Nodes, as on a real cluster: merge patches of annotations and
 * {@code spec.unschedulable}, and the pod garbage collector deleting the pods of a deleted Node.
 */
class NodeApiTest extends ApiTestBase {
  private static final String NS = "default";
  private static final Duration WAIT = Duration.ofSeconds(10);

  private static Node node(String name) {
    return client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withAnnotations(Map.of("keep", "me"))
                .endMetadata()
                .build())
        .create();
  }

  private static Pod boundPod(String name, String node) {
    createPod(NS, name, Map.of("app", "x"));
    client
        .bindings()
        .inNamespace(NS)
        .resource(
            new BindingBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewTarget()
                .withKind("Node")
                .withName(node)
                .endTarget()
                .build())
        .create();
    return client.pods().inNamespace(NS).withName(name).get();
  }

  @Test
  void mergePatchSetsAndRemovesAnnotationsAndCordons() {
    node("np-1");
    client
        .nodes()
        .withName("np-1")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"spec\":{\"unschedulable\":true},"
                + "\"metadata\":{\"annotations\":{\"tandem.dev/cordon-reason\":\"broken\"}}}");
    Node n = client.nodes().withName("np-1").get();
    assertEquals(true, n.getSpec().getUnschedulable());
    assertEquals(
        Map.of("keep", "me", "tandem.dev/cordon-reason", "broken"),
        n.getMetadata().getAnnotations());
    client
        .nodes()
        .withName("np-1")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\"tandem.dev/cordon-reason\":null}}}");
    assertEquals(
        Map.of("keep", "me"), client.nodes().withName("np-1").get().getMetadata().getAnnotations());
  }

  @Test
  void deletingANodeDeletesThePodsBoundToIt() throws InterruptedException {
    node("gone-1");
    node("stays-1");
    boundPod("on-gone", "gone-1");
    boundPod("on-stays", "stays-1");
    createPod(NS, "unbound", Map.of("app", "x"));
    client.nodes().withName("gone-1").delete();
    await(
        WAIT,
        () -> client.pods().inNamespace(NS).withName("on-gone").get() == null,
        "the pod on the deleted node to go");
    assertTrue(server.awaitGarbageCollector(WAIT));
    assertNotNull(client.pods().inNamespace(NS).withName("on-stays").get(), "other nodes' pods");
    assertNotNull(client.pods().inNamespace(NS).withName("unbound").get(), "unbound pods");
  }

  @Test
  void aPodInItsGracePeriodGoesAtOnceWhenItsNodeIsDeleted() {
    node("grace-1");
    boundPod("terminating", "grace-1");
    client.pods().inNamespace(NS).withName("terminating").delete();
    Pod p = client.pods().inNamespace(NS).withName("terminating").get();
    assertNotNull(p, "a bound pod waits out its grace period (no kubelet runs here)");
    assertNotNull(p.getMetadata().getDeletionTimestamp());
    client.nodes().withName("grace-1").delete();
    await(
        WAIT,
        () -> client.pods().inNamespace(NS).withName("terminating").get() == null,
        "the pod GC to force-delete it: no kubelet is left to finish it");
  }
}
