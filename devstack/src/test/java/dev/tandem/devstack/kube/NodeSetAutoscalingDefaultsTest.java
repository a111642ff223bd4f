package dev.tandem.devstack.kube;

import static dev.tandem.k8s.Fixtures.json;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.k8s.Fixtures;
import dev.tandem.k8s.Json;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.NodeSetSpecs;
import dev.tandem.workflows.model.Autoscaling;
import dev.tandem.workflows.model.NodeSetSpecView;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FieldValidateable;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code spec.autoscaling} stored by the real API server with the CRD the build generates: the
 * schema's defaults are filled in, and they are the ones Tandem's converter uses when a field is
 * absent ({@link Autoscaling}'s), so a NodeSet means the same whether the API server defaulted it
 * or not (an object stored before the field existed, or sent by signal).
 */
class NodeSetAutoscalingDefaultsTest {
  static KubernetesClient client;
  static TestNamespace namespace;

  @BeforeAll
  static void start() throws IOException {
    LocalKubernetes kube = SharedKubernetes.get();
    client = kube.adminClient();
    kube.installNodeSetCrd(client);
    namespace = TestNamespace.create(client, "autoscaling-defaults");
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      namespace.close();
      client.close();
    }
  }

  @Test
  void theApiServerFillsInTheDefaultsTandemReads() {
    ObjectNode n = Fixtures.example();
    ObjectNode meta = (ObjectNode) n.get("metadata");
    meta.remove("uid");
    meta.remove("generation");
    meta.put("namespace", namespace.name());
    Fixtures.with(n, "spec.autoscaling", json("{\"maxReplicas\":8}"));
    GenericKubernetesResource stored =
        NodeSetResources.generic(client)
            .inNamespace(namespace.name())
            .resource(Json.MAPPER.convertValue(n, GenericKubernetesResource.class))
            .fieldValidation(FieldValidateable.Validation.STRICT)
            .create();

    JsonNode autoscaling = Json.MAPPER.valueToTree(stored).at("/spec/autoscaling");
    assertEquals(
        json("{\"maxReplicas\":8,\"minReplicas\":0,\"idleTime\":\"10m\",\"scaleUpDelay\":\"5s\"}"),
        autoscaling);
    NodeSetSpecView v = NodeSetSpecs.toView(stored);
    assertEquals(List.of(), v.problems());
    assertEquals(
        new Autoscaling(
            0, 8, Autoscaling.DEFAULT_IDLE_SECONDS, Autoscaling.DEFAULT_SCALE_UP_DELAY_SECONDS),
        v.autoscaling());
    // The converter gives the same for the block as written, before any defaulting.
    assertEquals(v.autoscaling(), NodeSetSpecs.toView(n).autoscaling());
  }
}
