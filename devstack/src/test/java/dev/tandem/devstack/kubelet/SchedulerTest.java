package dev.tandem.devstack.kubelet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.tandem.devstack.api.LocalApiServer;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The local scheduler's decisions when its pod cache lags behind its own bindings. */
class SchedulerTest {
  private LocalApiServer server;
  private KubernetesClient client;

  @BeforeEach
  void start() throws java.io.IOException {
    server = LocalApiServer.start(0);
    client = server.client();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private Pod create(String name) {
    return client
        .pods()
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("slurmd")
                .withNewResources()
                .withRequests(Map.of("cpu", new Quantity("1"), "memory", new Quantity("1Gi")))
                .endResources()
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  /**
   * kube-scheduler assumes a pod on its node as soon as it binds it; a scheduler that waited for
   * its cache put two pods created together on the same empty node (CI saw two slurmd pods of one
   * NodeSet on one node, and a 3-node gang then had only 2 distinct Kubernetes nodes).
   */
  @Test
  void aPodJustBoundCountsOnItsNodeBeforeTheCacheShowsIt() {
    List<Node> nodes =
        List.of(
            NodeFitTest.node("local-1", true, Map.of()),
            NodeFitTest.node("local-2", true, Map.of()));
    List<Pod> cache = new ArrayList<>(); // a cache that never catches up: only unbound pods
    Scheduler s = new Scheduler(client, Set.of("local-1", "local-2"), () -> nodes, () -> cache);
    Pod a = create("a");
    Pod b = create("b");
    cache.add(a);
    cache.add(b);
    String first = s.schedule(a);
    String second = s.schedule(b);
    assertNotEquals(first, second, "two pods bound together spread like kube-scheduler's");
    assertEquals(
        first, client.pods().inNamespace("default").withName("a").get().getSpec().getNodeName());
  }
}
