package dev.tandem.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.schedule.PodRequest;
import dev.tandem.workflows.schedule.Quantities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchedulingPodsTest {

  private static Container container(String name, Map<String, String> requests) {
    return container(name, requests, Map.of());
  }

  private static Container container(
      String name, Map<String, String> requests, Map<String, String> limits) {
    return new ContainerBuilder()
        .withName(name)
        .withImage("busybox")
        .withNewResources()
        .withRequests(quantities(requests))
        .withLimits(quantities(limits))
        .endResources()
        .build();
  }

  private static Map<String, Quantity> quantities(Map<String, String> m) {
    Map<String, Quantity> out = new HashMap<>();
    m.forEach((k, v) -> out.put(k, new Quantity(v)));
    return out;
  }

  private static PodBuilder pod(List<Container> containers, List<Container> init) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("ml")
        .withName("train-0")
        .withUid("6f1c-uid")
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("tandem-slurm")
        .withContainers(containers)
        .withInitContainers(init)
        .endSpec();
  }

  private static Map<String, String> requests(Pod p) {
    return SchedulingPods.request(p).requests();
  }

  @Test
  void containersAddUpInReadableQuantitiesTheWorkflowParses() {
    Pod p =
        pod(
                List.of(
                    container("a", Map.of("cpu", "500m", "memory", "1Gi")),
                    container("b", Map.of("cpu", "1.5", "memory", "512Mi"))),
                List.of())
            .build();
    Map<String, String> r = requests(p);
    assertEquals("2", r.get("cpu"));
    assertEquals("1536Mi", r.get("memory"));
    assertEquals(2, Quantities.cpus(r.get("cpu")));
    assertEquals(1536, Quantities.memoryMb(r.get("memory")));
  }

  @Test
  void fractionalCpuAndDecimalMemoryKeepTheirValue() {
    Pod p =
        pod(
                List.of(
                    container("a", Map.of("cpu", "250m", "memory", "1G")),
                    container("b", Map.of("cpu", "0.5", "memory", "500M"))),
                List.of())
            .build();
    Map<String, String> r = requests(p);
    assertEquals("750m", r.get("cpu"));
    assertEquals(0, new BigDecimal("0.75").compareTo(Quantities.parse(r.get("cpu"))));
    assertEquals(0, new BigDecimal("1500000000").compareTo(Quantities.parse(r.get("memory"))));
    assertEquals(1431, Quantities.memoryMb(r.get("memory"))); // 1.5e9 / 2^20 rounded up
  }

  @Test
  void anInitContainerBiggerThanTheSumWins() {
    Pod p =
        pod(
                List.of(
                    container("a", Map.of("cpu", "1", "memory", "1Gi")),
                    container("b", Map.of("cpu", "1", "memory", "1Gi"))),
                List.of(
                    container("init-big-cpu", Map.of("cpu", "3", "memory", "256Mi")),
                    container("init-small", Map.of("cpu", "100m"))))
            .build();
    Map<String, String> r = requests(p);
    assertEquals("3", r.get("cpu"), "the largest init container (3) beats the sum (2)");
    assertEquals("2Gi", r.get("memory"), "the sum (2Gi) beats the init container (256Mi)");
  }

  @Test
  void sidecarsRunAlongsideAndAddUp() {
    Container sidecar = container("proxy", Map.of("cpu", "500m"));
    sidecar.setRestartPolicy("Always");
    Pod p =
        pod(
                List.of(container("a", Map.of("cpu", "1"))),
                List.of(sidecar, container("init", Map.of("cpu", "1200m"))))
            .build();
    // app: 1 + sidecar 0.5 = 1.5; init step: 1.2 + sidecar 0.5 = 1.7 -> 1.7
    assertEquals("1700m", requests(p).get("cpu"));
  }

  @Test
  void extendedResourcesLimitsOnlyAndOverheadCount() {
    Pod p =
        pod(
                List.of(
                    container(
                        "a", Map.of("cpu", "1", "memory", "1Gi"), Map.of("nvidia.com/gpu", "2")),
                    container("b", Map.of("nvidia.com/gpu", "1"))),
                List.of())
            .editSpec()
            .withOverhead(quantities(Map.of("cpu", "250m", "memory", "64Mi")))
            .endSpec()
            .build();
    Map<String, String> r = requests(p);
    assertEquals("3", r.get("nvidia.com/gpu"));
    assertEquals("1250m", r.get("cpu"));
    assertEquals("1088Mi", r.get("memory"));
  }

  @Test
  void theRestOfThePodIsPassedOn() {
    Pod p =
        pod(List.of(container("a", Map.of("cpu", "1"))), List.of())
            .editMetadata()
            .addToAnnotations("tandem.dev/partition", "gpu")
            .endMetadata()
            .editSpec()
            .withNodeSelector(Map.of("nvidia.com/gpu.product", "A100"))
            .withPriorityClassName("high")
            .withTerminationGracePeriodSeconds(10L)
            .withNodeName("k8s-1")
            .endSpec()
            .build();
    PodRequest r = SchedulingPods.request(p);
    assertEquals("ml", r.namespace());
    assertEquals("train-0", r.name());
    assertEquals("6f1c-uid", r.uid());
    assertEquals("gpu", r.annotations().get("tandem.dev/partition"));
    assertEquals(Map.of("nvidia.com/gpu.product", "A100"), r.nodeSelector());
    assertEquals("high", r.priorityClassName());
    assertEquals(10L, r.terminationGracePeriodSeconds());
    assertEquals("k8s-1", r.nodeName());

    PodRequest bare =
        SchedulingPods.request(pod(List.of(container("a", Map.of())), List.of()).build());
    assertTrue(bare.requests().isEmpty());
    assertNull(bare.terminationGracePeriodSeconds());
    assertNull(bare.priorityClassName());
  }

  @Test
  void onlyTandemSlurmPodsAreTandemScheduled() {
    assertTrue(SchedulingPods.isTandemScheduled(pod(List.of(), List.of()).build()));
    Pod other =
        pod(List.of(), List.of())
            .editSpec()
            .withSchedulerName("default-scheduler")
            .endSpec()
            .build();
    assertFalse(SchedulingPods.isTandemScheduled(other));
    assertFalse(
        SchedulingPods.isTandemScheduled(new PodBuilder().withNewMetadata().endMetadata().build()));
  }

  @Test
  void formatsExactBinaryAmountsWithSuffixesOnlyForBytes() {
    assertEquals("2Gi", SchedulingPods.format("memory", new BigDecimal(2L << 30)));
    assertEquals("3Ki", SchedulingPods.format("memory", new BigDecimal(3072)));
    assertEquals("1000", SchedulingPods.format("memory", new BigDecimal(1000)));
    assertEquals("2048", SchedulingPods.format("cpu", new BigDecimal(2048)));
    assertEquals("100m", SchedulingPods.format("cpu", new BigDecimal("0.1")));
    assertEquals("0.0005", SchedulingPods.format("cpu", new BigDecimal("0.0005")));
  }
}
