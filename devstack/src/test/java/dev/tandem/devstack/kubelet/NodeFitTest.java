package dev.tandem.devstack.kubelet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeFitTest {
  static Node node(String name, boolean ready, Map<String, String> labels) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .endCondition()
        .withAllocatable(
            Map.of(
                "cpu", new Quantity("2"), "memory", new Quantity("4Gi"), "pods", new Quantity("3")))
        .endStatus()
        .build();
  }

  static Pod pod(String cpu) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("p")
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("c")
        .withImage("i")
        .withNewResources()
        .withRequests(cpu == null ? Map.of() : Map.of("cpu", new Quantity(cpu)))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  @Test
  void filtersAndExplains() {
    Node notReady = node("a", false, Map.of());
    Node cordoned =
        new NodeBuilder(node("b", true, Map.of()))
            .editSpec()
            .withUnschedulable(true)
            .endSpec()
            .build();
    Node tainted =
        new NodeBuilder(node("c", true, Map.of()))
            .editSpec()
            .addNewTaint()
            .withKey("gpu")
            .withValue("x")
            .withEffect("NoSchedule")
            .endTaint()
            .endSpec()
            .build();
    Node wrongLabel = node("d", true, Map.of("pool", "cpu"));
    NodeFit.Decision d =
        NodeFit.choose(
            new PodBuilder(pod(null))
                .editSpec()
                .withNodeSelector(Map.of("pool", "gpu"))
                .endSpec()
                .build(),
            List.of(notReady, cordoned, tainted, wrongLabel),
            Map.of());
    assertNull(d.node());
    assertEquals(
        "0/4 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {gpu: x}, 1 node(s) were not ready, 1 node(s) were unschedulable.",
        d.message());
  }

  @Test
  void tolerationsSelectorsAffinityAndResources() {
    Node gpu =
        new NodeBuilder(node("gpu", true, Map.of("pool", "gpu", "rack", "7")))
            .editSpec()
            .withUnschedulable(true)
            .addNewTaint()
            .withKey("gpu")
            .withEffect("NoSchedule")
            .endTaint()
            .endSpec()
            .build();
    Pod tolerant =
        new PodBuilder(pod(null))
            .editSpec()
            .addNewToleration()
            .withKey("gpu")
            .withOperator("Exists")
            .endToleration()
            .addNewToleration()
            .withKey("node.kubernetes.io/unschedulable")
            .withOperator("Exists")
            .withEffect("NoSchedule")
            .endToleration()
            .withNewAffinity()
            .withNewNodeAffinity()
            .withNewRequiredDuringSchedulingIgnoredDuringExecution()
            .addNewNodeSelectorTerm()
            .addNewMatchExpression()
            .withKey("rack")
            .withOperator("Gt")
            .withValues("5")
            .endMatchExpression()
            .addNewMatchExpression()
            .withKey("pool")
            .withOperator("In")
            .withValues("gpu", "fpga")
            .endMatchExpression()
            .endNodeSelectorTerm()
            .endRequiredDuringSchedulingIgnoredDuringExecution()
            .endNodeAffinity()
            .endAffinity()
            .endSpec()
            .build();
    assertEquals("gpu", NodeFit.choose(tolerant, List.of(gpu), Map.of()).node());

    Node small = node("small", true, Map.of());
    assertEquals("Insufficient cpu", NodeFit.reject(pod("2500m"), small, List.of()));
    assertEquals("Insufficient cpu", NodeFit.reject(pod("1"), small, List.of(pod("1500m"))));
    assertNull(NodeFit.reject(pod("500m"), small, List.of(pod("1500m"))));
    assertEquals(
        "Too many pods",
        NodeFit.reject(pod(null), small, List.of(pod(null), pod(null), pod(null))));
  }

  @Test
  void spreadsToTheNodeWithFewestPods() {
    Node a = node("a", true, Map.of());
    Node b = node("b", true, Map.of());
    assertEquals("a", NodeFit.choose(pod(null), List.of(b, a), Map.of()).node(), "ties go by name");
    assertEquals(
        "b", NodeFit.choose(pod(null), List.of(a, b), Map.of("a", List.of(pod(null)))).node());
  }
}
