package dev.tandem.devstack.remediation;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.LocalApiServer;
import dev.tandem.k8s.Fixtures;
import dev.tandem.k8s.Json;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.PodLabels;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The local Kubernetes API with the NodeSet CRD, and the objects remediation works on. */
abstract class RemediationApiBase {
  static final String NS = "default";

  static LocalApiServer server;
  static KubernetesClient client;

  @BeforeAll
  static void startServer() throws IOException {
    server = LocalApiServer.start(0);
    server.installCrd("META-INF/fabric8/nodesets.tandem.dev-v1.yml");
    client = server.client();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 6);
  }

  /** A node with these labels and status conditions ({@code type -> status}). */
  static void node(String name, Map<String, String> labels, Map<String, String> conditions) {
    node(client, name, labels, conditions);
  }

  static void node(
      KubernetesClient c, String name, Map<String, String> labels, Map<String, String> conditions) {
    c.nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .build())
        .create();
    setConditions(c, name, conditions, null);
  }

  /** Replaces the node's conditions (and its bootID when not null), as a kubelet reports them. */
  static void setConditions(
      KubernetesClient c, String name, Map<String, String> conditions, String bootId) {
    ObjectNode status = Json.MAPPER.createObjectNode();
    var list = status.putArray("conditions");
    conditions.forEach(
        (type, value) ->
            list.addObject()
                .put("type", type)
                .put("status", value)
                .put("reason", "Test")
                .put("message", type + " is " + value)
                .put("lastTransitionTime", java.time.Instant.now().toString()));
    if (bootId != null) {
      status.putObject("nodeInfo").put("bootID", bootId);
    }
    ObjectNode patch = Json.MAPPER.createObjectNode();
    patch.set("status", status);
    c.nodes()
        .withName(name)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), patch.toString());
  }

  /**
   * A slurmd pod of NodeSet {@code nodeSet} as Tandem labels it, bound to {@code node}, Running.
   */
  static void slurmdPod(KubernetesClient c, String pod, String nodeSet, int ordinal, String node) {
    c.pods()
        .inNamespace(NS)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(pod)
                .withLabels(
                    Map.of(PodLabels.NODESET, nodeSet, PodLabels.ORDINAL, String.valueOf(ordinal)))
                .endMetadata()
                .withNewSpec()
                .withTerminationGracePeriodSeconds(30L)
                .addNewContainer()
                .withName("slurmd")
                .withImage("tandem/slurmd:22.05")
                .endContainer()
                .endSpec()
                .build())
        .create();
    bind(c, pod, node);
    c.pods()
        .inNamespace(NS)
        .withName(pod)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"phase\":\"Running\"}}");
  }

  static void bind(KubernetesClient c, String pod, String node) {
    c.bindings()
        .inNamespace(NS)
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

  /** The example NodeSet under {@code name}, with {@code remediation} (JSON) or none (null). */
  static void nodeSet(KubernetesClient c, String name, String remediation) {
    ObjectNode n = Fixtures.example();
    ObjectNode meta = (ObjectNode) n.get("metadata");
    meta.remove(java.util.List.of("uid", "generation", "resourceVersion"));
    meta.put("name", name);
    if (remediation != null) {
      ((ObjectNode) n.get("spec")).set("remediation", Fixtures.json(remediation));
    }
    NodeSetResources.generic(c)
        .inNamespace(NS)
        .resource(Json.MAPPER.convertValue(n, GenericKubernetesResource.class))
        .create();
  }
}
