package dev.tandem.devstack.kubelet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The kubelet's resource admission, and the node resources of the dev stack's setting. */
class AdmissionTest {
  static Node node(Map<String, String> alloc) {
    Map<String, Quantity> q = new LinkedHashMap<>();
    alloc.forEach((k, v) -> q.put(k, new Quantity(v)));
    return new NodeBuilder()
        .withNewMetadata()
        .withName("n")
        .endMetadata()
        .withNewStatus()
        .withAllocatable(q)
        .endStatus()
        .build();
  }

  static Pod pod(Map<String, String> requests) {
    Map<String, Quantity> q = new LinkedHashMap<>();
    requests.forEach((k, v) -> q.put(k, new Quantity(v)));
    return new PodBuilder()
        .withNewMetadata()
        .withName("p")
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("c")
        .withImage("i")
        .withNewResources()
        .withRequests(q)
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  static final Node NODE =
      node(Map.of("cpu", "8", "memory", "32Gi", "pods", "3", "nvidia.com/gpu", "4"));

  @Test
  void rejectsWithTheKubeletsReasonAndMessage() {
    Pod big = pod(Map.of("cpu", "6", "memory", "1Gi"));
    assertNull(Admission.check(big, NODE, List.of()));
    Admission.Rejection cpu = Admission.check(pod(Map.of("cpu", "2500m")), NODE, List.of(big));
    assertEquals("OutOfcpu", cpu.reason());
    assertEquals(
        "Node didn't have enough resource: cpu, requested: 2500, used: 6000, capacity: 8000",
        cpu.message());
    Admission.Rejection mem =
        Admission.check(pod(Map.of("cpu", "1", "memory", "32Gi")), NODE, List.of(big));
    assertEquals("OutOfmemory", mem.reason());
    assertEquals(
        "Node didn't have enough resource: memory, requested: 34359738368, used: 1073741824,"
            + " capacity: 34359738368",
        mem.message());
    Admission.Rejection gpu =
        Admission.check(
            pod(Map.of("cpu", "1", "nvidia.com/gpu", "3")),
            NODE,
            List.of(pod(Map.of("nvidia.com/gpu", "2"))));
    assertEquals("OutOfnvidia.com/gpu", gpu.reason());
    assertEquals(
        "Node didn't have enough resource: nvidia.com/gpu, requested: 3, used: 2, capacity: 4",
        gpu.message());
    assertNull(
        Admission.check(
            pod(Map.of("nvidia.com/gpu", "2")), NODE, List.of(pod(Map.of("nvidia.com/gpu", "2")))));
  }

  @Test
  void aResourceTheNodeDoesNotListHasNoRoomAndPodsAreCountedFirst() {
    Admission.Rejection fpga =
        Admission.check(pod(Map.of("example.com/fpga", "1")), NODE, List.of());
    assertEquals("OutOfexample.com/fpga", fpga.reason());
    List<Pod> three = List.of(pod(Map.of()), pod(Map.of()), pod(Map.of()));
    Admission.Rejection pods = Admission.check(pod(Map.of("cpu", "100")), NODE, three);
    assertEquals("OutOfpods", pods.reason());
    assertEquals(
        "Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3",
        pods.message());
  }

  @Test
  void initContainersCountAsTheirLargestNotTheirSum() {
    Pod p =
        new PodBuilder(pod(Map.of("cpu", "1")))
            .editSpec()
            .addNewInitContainer()
            .withName("i1")
            .withImage("i")
            .withNewResources()
            .withRequests(Map.of("cpu", new Quantity("5")))
            .endResources()
            .endInitContainer()
            .addNewInitContainer()
            .withName("i2")
            .withImage("i")
            .withNewResources()
            .withRequests(Map.of("cpu", new Quantity("5")))
            .endResources()
            .endInitContainer()
            .endSpec()
            .build();
    assertEquals(0, new java.math.BigDecimal("5").compareTo(PodResources.requests(p).get("cpu")));
    assertNull(Admission.check(p, NODE, List.of(pod(Map.of("cpu", "3")))));
    assertEquals("OutOfcpu", Admission.check(p, NODE, List.of(pod(Map.of("cpu", "4")))).reason());
  }

  @Test
  void nodeResourcesAreConfigurable() {
    assertEquals(
        Map.of("cpu", "16", "memory", "64Gi", "nvidia.com/gpu", "8"),
        KubeletConfig.resources(" cpu=16, memory=64Gi ,nvidia.com/gpu=8"));
    assertEquals(
        "4", KubeletConfig.resources(KubeletConfig.DEFAULT_RESOURCES).get("nvidia.com/gpu"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> KubeletConfig.resources("cpu"));
    assertEquals(
        KubeletConfig.RESOURCES_ENV + ": expected name=quantity, got \"cpu\"", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> KubeletConfig.resources("cpu=lots"));
  }
}
