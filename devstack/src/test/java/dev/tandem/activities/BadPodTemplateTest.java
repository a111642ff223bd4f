package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.tandem.k8s.Fixtures;
import dev.tandem.k8s.NodeSetSpecs;
import dev.tandem.slurm.testing.MutableClock;
import dev.tandem.workflows.activities.KubeActivities;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import dev.tandem.workflows.model.PodRequest;
import io.fabric8.kubernetes.api.model.Event;
import io.temporal.failure.ApplicationFailure;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Bad-input catalogue (docs/reliability.md): a pod template field newer than the cluster. Tandem
 * passes a field its model does not know (and that is no near miss of one it does) to the pod; the
 * real API server's strict field validation refuses the pod. The refusal must arrive as a
 * non-retryable {@code KubePodRejected} whose one-line message names the field, which the NodeSet
 * shows as its {@code InvalidSpec} condition (reason {@code PodRejected}), and the whole error as a
 * Warning event on the NodeSet.
 */
class BadPodTemplateTest {
  /** A pod field no Kubernetes release has (yet). */
  static final String FIELD = "checkpointPolicy";

  @Test
  void fieldNewerThanTheClusterIsRefusedWithTheApiServersWords() throws Exception {
    NodeSetSpecView v =
        NodeSetSpecs.toView(
            Fixtures.with(
                Fixtures.example(), "spec.template.spec." + FIELD, TextNode.valueOf("node-7")));
    assertEquals(List.of(), v.problems(), "passed on: only the cluster can judge");
    try (RealApi api = RealApi.start();
        RealApi.Namespace namespace = api.namespace()) {
      String ns = namespace.name;
      KubeActivitiesImpl kube =
          new KubeActivitiesImpl(
              api.proxied, new MutableClock(Instant.parse("2025-01-01T00:00:00Z")));
      ApplicationFailure f =
          assertThrows(
              ApplicationFailure.class,
              () ->
                  kube.ensurePod(
                      new PodRequest(
                          NodeRef.of(ns, "gpu-a", 0), v.template(), api.nodeSet(ns, "gpu-a"))));
      assertEquals(KubeActivities.POD_REJECTED, f.getType());
      assertTrue(f.isNonRetryable(), "the same pod would be refused again");
      assertEquals("unknown field \"spec." + FIELD + "\"", f.getOriginalMessage());
      assertEquals(List.of(), api.admin.pods().inNamespace(ns).list().getItems(), "no pod");

      List<Event> events = api.admin.v1().events().inNamespace(ns).list().getItems();
      assertEquals(1, events.size());
      Event ev = events.get(0);
      assertEquals("PodRejected", ev.getReason());
      assertEquals("Warning", ev.getType());
      assertEquals("NodeSet", ev.getInvolvedObject().getKind());
      assertEquals("gpu-a", ev.getInvolvedObject().getName());
      assertTrue(ev.getMessage().contains("strict decoding error"), ev.getMessage());
    }
  }
}
