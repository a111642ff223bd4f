package dev.tandem.devstack.remediation;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.kube.LocalKubernetes;
import dev.tandem.devstack.kube.SharedKubernetes;
import dev.tandem.devstack.kube.TestNamespace;
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
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The JVM's real control plane with the NodeSet CRD, a namespace of each test class's own, and the
 * objects remediation works on. Nodes are cluster-scoped: each has a unique name and is deleted
 * after the class. No kubelet runs: a test writes the status a kubelet would.
 */
abstract class RemediationApiBase {
  static KubernetesClient client;
  static TestNamespace namespace;

  /** The test class's namespace, where its NodeSets and slurmd pods are. */
  static String ns;

  private static final List<String> NODES = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void startServer() throws IOException {
    LocalKubernetes kube = SharedKubernetes.get();
    client = kube.adminClient();
    kube.installNodeSetCrd(client);
    namespace = TestNamespace.create(client, "remediation");
    ns = namespace.name();
  }

  @AfterAll
  static void stopServer() {
    if (client != null) {
      namespace.close();
      NODES.forEach(n -> client.nodes().withName(n).delete());
      NODES.clear();
      client.close();
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
    NODES.add(name);
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
   * A slurmd pod of NodeSet {@code nodeSet} as Tandem labels it, bound to {@code node} (here, as a
   * scheduler would: no scheduler serves its schedulerName), Running.
   */
  static void slurmdPod(KubernetesClient c, String pod, String nodeSet, int ordinal, String node) {
    c.pods()
        .inNamespace(ns)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(pod)
                .withLabels(
                    Map.of(PodLabels.NODESET, nodeSet, PodLabels.ORDINAL, String.valueOf(ordinal)))
                .endMetadata()
                .withNewSpec()
                .withSchedulerName("bound-by-the-test")
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
        .inNamespace(ns)
        .withName(pod)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"phase\":\"Running\"}}");
  }

  static void bind(KubernetesClient c, String pod, String node) {
    c.bindings()
        .inNamespace(ns)
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
    meta.remove(List.of("uid", "generation", "resourceVersion"));
    meta.put("name", name);
    meta.put("namespace", ns);
    if (remediation != null) {
      ((ObjectNode) n.get("spec")).set("remediation", Fixtures.json(remediation));
    }
    NodeSetResources.generic(c)
        .inNamespace(ns)
        .resource(Json.MAPPER.convertValue(n, GenericKubernetesResource.class))
        .create();
  }
}
