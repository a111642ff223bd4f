package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.k8s.NodeSetSpecs;
import dev.tandem.workflows.model.Autoscaling;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Which cached NodeSets the demand feed reads as autoscaled. Until the converter reads {@code
 * spec.autoscaling}, the test's converter takes the annotation {@code test/max} for it.
 */
class AutoscaledNodeSetsTest {
  private static final String TEMPLATE =
      "  template:\n    spec:\n      containers:\n      - name: slurmd\n        image: x\n";

  private final AtomicInteger conversions = new AtomicInteger();
  private final AutoscaledNodeSets autoscaled =
      new AutoscaledNodeSets(
          r -> {
            conversions.incrementAndGet();
            return withMax(NodeSetSpecs.toView(r), r.getMetadata().getAnnotations());
          });
  private final NodeSetRef ref = new NodeSetRef("default", "gpu");

  private static NodeSetSpecView withMax(NodeSetSpecView v, Map<String, String> annotations) {
    String max = annotations == null ? null : annotations.get("test/max");
    if (max == null) {
      return v;
    }
    return new NodeSetSpecView(
        v.generation(),
        v.uid(),
        v.replicas(),
        v.template(),
        v.updateStrategy(),
        v.updateDrain(),
        v.scaleDownDrain(),
        v.problems(),
        v.rejected(),
        v.remediation(),
        new Autoscaling(0, Integer.parseInt(max), 600, 5));
  }

  /** NodeSet {@code gpu} at {@code version}; {@code max} null: not autoscaled. */
  private static GenericKubernetesResource nodeSet(
      String uid, String version, int replicas, Integer max) {
    GenericKubernetesResource r =
        K8sObjects.in(
            "default", K8sObjects.nodeSet("gpu", "  replicas: " + replicas + "\n" + TEMPLATE));
    r.getMetadata().setUid(uid);
    r.getMetadata().setResourceVersion(version);
    if (max != null) {
      r.getMetadata().setAnnotations(Map.of("test/max", max.toString()));
    }
    return r;
  }

  private Integer max(List<GenericKubernetesResource> cached) {
    NodeSetSpecView v = autoscaled.of(cached).get(ref);
    return v == null ? null : v.autoscaling().maxReplicas();
  }

  @Test
  void eachVersionIsConvertedOnceAndOnlyAutoscaledNodeSetsCount() {
    assertEquals(null, max(List.of(nodeSet("u1", "1", 2, null))));
    assertEquals(8, max(List.of(nodeSet("u1", "2", 2, 8))));
    assertEquals(8, max(List.of(nodeSet("u1", "2", 2, 8))));
    assertEquals(8, max(List.of(nodeSet("u1", "2", 2, 8))));
    assertEquals(2, conversions.get(), "once per resourceVersion");
    assertEquals(4, max(List.of(nodeSet("u1", "3", 2, 4))));
    assertEquals(null, max(List.of(nodeSet("u1", "4", 2, null))));
    assertEquals(4, conversions.get());
  }

  @Test
  void aNodeSetBeingDeletedDoesNotCount() {
    GenericKubernetesResource r = nodeSet("u1", "1", 2, 8);
    assertEquals(8, max(List.of(r)));
    GenericKubernetesResource deleting = nodeSet("u1", "2", 2, 8);
    deleting.getMetadata().setDeletionTimestamp("2026-01-01T00:00:00Z");
    assertEquals(Map.of(), autoscaled.of(List.of(deleting)));
  }

  @Test
  void anInvalidSpecLeavesTheLastValidOneInForce() {
    assertEquals(null, max(List.of(nodeSet("u1", "1", -3, 8))), "never valid: nothing known");
    assertEquals(8, max(List.of(nodeSet("u1", "2", 2, 8))));
    assertEquals(8, max(List.of(nodeSet("u1", "3", -3, 2))), "as in its workflow");
    assertEquals(2, max(List.of(nodeSet("u1", "4", 1, 2))));

    assertEquals(null, max(List.of(nodeSet("u2", "5", -3, 2))), "a new NodeSet of that name");
    assertEquals(2, max(List.of(nodeSet("u2", "6", 1, 2))));
    assertEquals(Map.of(), autoscaled.of(List.of()));
    assertEquals(null, max(List.of(nodeSet("u2", "7", -3, 2))), "gone from the cache: forgotten");
  }
}
