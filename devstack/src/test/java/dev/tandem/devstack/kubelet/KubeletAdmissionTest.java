package dev.tandem.devstack.kubelet;

import static dev.tandem.devstack.kubelet.LocalKubeletTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.api.LocalApiServer;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a real kubelet and node controller do that Flow 2 (pods through Slurm) depends on: pods
 * bound by another scheduler are admitted against the node's allocatable, and nodes carry the
 * not-ready taint until they are Ready.
 */
class KubeletAdmissionTest {
  @TempDir Path dir;
  LocalApiServer server;
  KubernetesClient client;
  LocalKubelet kubelet;
  final List<Node> nodeEvents = new CopyOnWriteArrayList<>();
  Watch nodeWatch;

  @BeforeEach
  void start() throws IOException {
    server = LocalApiServer.start(0);
    client = server.client();
    Files.writeString(dir.resolve("slurm.conf"), "NodeName=n[1-2] State=UNKNOWN\n");
    Files.writeString(
        dir.resolve("slurm.env"),
        "SLURM_CONF=" + dir.resolve("slurm.conf") + "\nSLURMD_BIN=/usr/sbin/slurmd\n");
    nodeWatch =
        client
            .nodes()
            .watch(
                new Watcher<Node>() {
                  @Override
                  public void eventReceived(Action action, Node node) {
                    nodeEvents.add(node);
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
    kubelet =
        LocalKubelet.start(
            client,
            KubeletConfig.defaults()
                .withNodes(2)
                .withCapacity(
                    Map.of("cpu", "8", "memory", "32Gi", "pods", "110", "nvidia.com/gpu", "4"))
                .withSlurmEnvFile(dir.resolve("slurm.env"))
                .withLogDir(dir.resolve("logs"))
                .withLauncher(new FakeLauncher())
                .withResync(Duration.ofMillis(300)));
  }

  @AfterEach
  void stop() {
    nodeWatch.close();
    kubelet.close();
    server.close();
  }

  private static boolean notReadyTainted(Node n) {
    List<Taint> ts = n.getSpec().getTaints();
    return ts != null
        && ts.stream()
            .anyMatch(
                t ->
                    t.getKey().equals("node.kubernetes.io/not-ready")
                        && t.getEffect().equals("NoSchedule"));
  }

  private static String ready(Node n) {
    return n.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals("Ready"))
        .findFirst()
        .orElseThrow()
        .getStatus();
  }

  private Node node(String name) {
    return client.nodes().withName(name).get();
  }

  @Test
  void nodesCarryTheNotReadyTaintUntilReady() {
    await(
        Duration.ofSeconds(10),
        () -> !notReadyTainted(node("local-1")) && !notReadyTainted(node("local-2")),
        "taints lifted");
    Node first =
        nodeEvents.stream()
            .filter(n -> n.getMetadata().getName().equals("local-1"))
            .findFirst()
            .orElseThrow();
    assertTrue(notReadyTainted(first), "registered with the taint");
    assertEquals("False", ready(first), "registered NotReady");
    assertEquals("True", ready(node("local-1")));

    // A node that stops being Ready gets the taint back, and loses it when Ready again.
    client
        .nodes()
        .withName("local-2")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"}]}}");
    await(Duration.ofSeconds(10), () -> notReadyTainted(node("local-2")), "taint added");
    Pod plain = client.pods().resource(pod("plain", null, Map.of("cpu", "1"))).create();
    await(
        Duration.ofSeconds(10),
        () -> "local-1".equals(get(plain.getMetadata().getName()).getSpec().getNodeName()),
        "the default scheduler avoids the tainted node");
    client
        .nodes()
        .withName("local-2")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
    await(Duration.ofSeconds(10), () -> !notReadyTainted(node("local-2")), "taint lifted again");
  }

  @Test
  void podsBoundByAnotherSchedulerAreAdmittedAgainstAllocatable() {
    client
        .pods()
        .resource(pod("big", "tandem-slurm", Map.of("cpu", "6", "nvidia.com/gpu", "2")))
        .create();
    client.pods().resource(pod("cpu-late", "tandem-slurm", Map.of("cpu", "3"))).create();
    client
        .pods()
        .resource(pod("gpu-late", "tandem-slurm", Map.of("cpu", "1", "nvidia.com/gpu", "3")))
        .create();
    sleepMs(500);
    assertNull(get("big").getSpec().getNodeName(), "the local scheduler leaves tandem-slurm pods");
    bind("big", "local-1");
    await(Duration.ofSeconds(10), () -> phase("big", "Running"), "big admitted");
    bind("cpu-late", "local-1");
    bind("gpu-late", "local-1");
    await(Duration.ofSeconds(10), () -> phase("cpu-late", "Failed"), "cpu-late rejected");
    await(Duration.ofSeconds(10), () -> phase("gpu-late", "Failed"), "gpu-late rejected");
    Pod cpu = get("cpu-late");
    assertEquals("OutOfcpu", cpu.getStatus().getReason());
    assertEquals(
        "Pod was rejected: Node didn't have enough resource: cpu, requested: 3000, used: 6000,"
            + " capacity: 8000",
        cpu.getStatus().getMessage());
    Pod gpu = get("gpu-late");
    assertEquals("OutOfnvidia.com/gpu", gpu.getStatus().getReason());
    assertEquals(
        "Pod was rejected: Node didn't have enough resource: nvidia.com/gpu, requested: 3, used:"
            + " 2, capacity: 4",
        gpu.getStatus().getMessage());
    await(
        Duration.ofSeconds(10),
        () ->
            client.v1().events().inNamespace("default").list().getItems().stream()
                .map(Event::getReason)
                .toList()
                .containsAll(List.of("OutOfcpu", "OutOfnvidia.com/gpu")),
        "kubelet events");
    sleepMs(700);
    assertEquals("Failed", get("cpu-late").getStatus().getPhase(), "a rejection is final");
    assertEquals(
        1,
        client.v1().events().inNamespace("default").list().getItems().stream()
            .filter(e -> e.getReason().equals("OutOfcpu"))
            .count(),
        "rejected once");
    // A rejected pod is bound, so its deletion is graceful: the kubelet still finishes it.
    client.pods().withName("gpu-late").delete();
    await(Duration.ofSeconds(10), () -> get("gpu-late") == null, "rejected pod deleted");

    // Once the big pod is gone its resources are free again.
    client.pods().withName("big").withGracePeriod(0).delete();
    await(Duration.ofSeconds(10), () -> get("big") == null, "big gone");
    client.pods().resource(pod("cpu-next", "tandem-slurm", Map.of("cpu", "3"))).create();
    bind("cpu-next", "local-1");
    await(Duration.ofSeconds(10), () -> phase("cpu-next", "Running"), "fits now");
  }

  private void bind(String pod, String node) {
    client
        .bindings()
        .inNamespace("default")
        .resource(
            new BindingBuilder()
                .withNewMetadata()
                .withName(pod)
                .endMetadata()
                .withNewTarget()
                .withKind("Node")
                .withName(node)
                .endTarget()
                .build())
        .create();
  }

  private static Pod pod(String name, String scheduler, Map<String, String> requests) {
    Map<String, Quantity> q = new java.util.LinkedHashMap<>();
    requests.forEach((k, v) -> q.put(k, new Quantity(v)));
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .endMetadata()
        .withNewSpec()
        .withSchedulerName(scheduler)
        .addNewContainer()
        .withName("main")
        .withImage("busybox:1.36")
        .withNewResources()
        .withRequests(q)
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  private Pod get(String name) {
    return client.pods().inNamespace("default").withName(name).get();
  }

  private boolean phase(String name, String phase) {
    Pod p = get(name);
    return p != null && p.getStatus() != null && phase.equals(p.getStatus().getPhase());
  }

  private static void sleepMs(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
