package dev.tandem.devstack.kubelet;

import static dev.tandem.devstack.kubelet.LocalKubeletTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a real kubelet does that Flow 2 (pods through Slurm) depends on: pods bound by another
 * scheduler are admitted against the node's allocatable, on the real control plane.
 */
class KubeletAdmissionTest {
  @TempDir Path dir;
  PlaneShare plane;
  KubernetesClient client;
  LocalKubelet kubelet;

  @BeforeEach
  void start() throws IOException {
    plane = new PlaneShare("admission");
    client = plane.client;
    Files.writeString(dir.resolve("slurm.conf"), "NodeName=n[1-2] State=UNKNOWN\n");
    Files.writeString(
        dir.resolve("slurm.env"),
        "SLURM_CONF=" + dir.resolve("slurm.conf") + "\nSLURMD_BIN=/usr/sbin/slurmd\n");
    kubelet =
        LocalKubelet.start(
            client,
            KubeletConfig.defaults()
                .withNodes(1)
                .withNodePrefix(plane.nodePrefix)
                .withCapacity(
                    Map.of("cpu", "8", "memory", "32Gi", "pods", "110", "nvidia.com/gpu", "4"))
                .withSlurmEnvFile(dir.resolve("slurm.env"))
                .withLogDir(dir.resolve("logs"))
                .withLauncher(new FakeLauncher())
                .withResync(Duration.ofMillis(300)));
  }

  @AfterEach
  void stop() {
    kubelet.close();
    plane.close();
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
    String node = plane.node(1);
    bind("big", node);
    await(LocalKubeletTest.WAIT, () -> phase("big", "Running"), "big admitted");
    bind("cpu-late", node);
    bind("gpu-late", node);
    await(LocalKubeletTest.WAIT, () -> phase("cpu-late", "Failed"), "cpu-late rejected");
    await(LocalKubeletTest.WAIT, () -> phase("gpu-late", "Failed"), "gpu-late rejected");
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
        LocalKubeletTest.WAIT,
        () ->
            client.v1().events().list().getItems().stream()
                .map(Event::getReason)
                .toList()
                .containsAll(List.of("OutOfcpu", "OutOfnvidia.com/gpu")),
        "kubelet events");
    sleepMs(700);
    assertEquals("Failed", get("cpu-late").getStatus().getPhase(), "a rejection is final");
    assertEquals(
        1,
        client.v1().events().list().getItems().stream()
            .filter(e -> e.getReason().equals("OutOfcpu"))
            .count(),
        "rejected once");
    // A rejected pod is bound, so its deletion is graceful: the kubelet still finishes it.
    client.pods().withName("gpu-late").delete();
    await(LocalKubeletTest.WAIT, () -> get("gpu-late") == null, "rejected pod deleted");

    // Once the big pod is gone its resources are free again.
    client.pods().withName("big").withGracePeriod(0).delete();
    await(LocalKubeletTest.WAIT, () -> get("big") == null, "big gone");
    client.pods().resource(pod("cpu-next", "tandem-slurm", Map.of("cpu", "3"))).create();
    bind("cpu-next", node);
    await(LocalKubeletTest.WAIT, () -> phase("cpu-next", "Running"), "fits now");
  }

  private void bind(String pod, String node) {
    client
        .bindings()
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
        .endMetadata()
        .withNewSpec()
        .withSchedulerName(scheduler)
        .addNewContainer()
        .withName("main")
        .withImage("busybox:1.36")
        .withNewResources()
        .withRequests(q)
        .withLimits(q) // the API server requires limits = requests for extended resources
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  private Pod get(String name) {
    return client.pods().withName(name).get();
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
