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
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.temporal.failure.ApplicationFailure;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Bad-input catalogue (docs/reliability.md): a pod template field newer than the cluster. Tandem
 * passes a field its model does not know (and that is no near miss of one it does) to the pod; the
 * cluster's strict field validation refuses the pod. The refusal must arrive as a non-retryable
 * {@code KubePodRejected} whose one-line message names the field, which the NodeSet shows as its
 * {@code InvalidSpec} condition (reason {@code PodRejected}). The mock does not validate pods: the
 * canned answer is a real API server's for such a field.
 */
@EnableKubernetesMockClient(crud = true)
class BadPodTemplateTest {
  static KubernetesMockServer server;
  static KubernetesClient mockClient;

  @Test
  void fieldNewerThanTheClusterIsRefusedWithTheApiServersWords() {
    String ns = MockApi.namespace();
    NodeSetSpecView v =
        NodeSetSpecs.toView(
            Fixtures.with(
                Fixtures.example(),
                "spec.template.spec.hostnameOverride",
                TextNode.valueOf("node-7")));
    assertEquals(java.util.List.of(), v.problems(), "passed on: only the cluster can judge");
    server
        .expect()
        .post()
        .withPath("/api/v1/namespaces/" + ns + "/pods?fieldValidation=Strict")
        .andReturn(
            400,
            new StatusBuilder()
                .withCode(400)
                .withReason("BadRequest")
                .withMessage(
                    "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error:"
                        + " unknown field \"spec.hostnameOverride\"")
                .build())
        .once();
    try (KubernetesClient client = MockApi.withoutRetries(mockClient)) {
      MockApi.installCrd(client);
      KubeActivitiesImpl kube =
          new KubeActivitiesImpl(client, new MutableClock(Instant.parse("2025-01-01T00:00:00Z")));
      ApplicationFailure f =
          assertThrows(
              ApplicationFailure.class,
              () ->
                  kube.ensurePod(
                      new PodRequest(
                          NodeRef.of(ns, "gpu-a", 0),
                          v.template(),
                          MockApi.nodeSet(client, ns, "gpu-a"))));
      assertEquals(KubeActivities.POD_REJECTED, f.getType());
      assertTrue(f.isNonRetryable(), "the same pod would be refused again");
      assertEquals("unknown field \"spec.hostnameOverride\"", f.getOriginalMessage());
      assertEquals(0, client.pods().inNamespace(ns).list().getItems().size(), "no pod");
    }
  }
}
