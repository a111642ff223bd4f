package dev.tandem.devstack.catalogue;

import static dev.tandem.k8s.Fixtures.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tandem.devstack.api.LocalApiServer;
import dev.tandem.k8s.Fixtures;
import dev.tandem.k8s.Json;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.api.NodeSet;
import dev.tandem.k8s.api.RollingUpdateSpec;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FieldValidateable;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad-input catalogue (docs/reliability.md): malformed NodeSets applied to the local API server
 * with the CRD the build generates, as {@code kubectl apply} sends them (strict field validation).
 * The API server refuses each with the message asserted here, which is what {@code kubectl apply}
 * prints after {@code Error from server}; the NodeSet stored before stays exactly as it was (same
 * resourceVersion), so Tandem never sees the bad spec. A real API server answers the same from the
 * same CRD; what the schema cannot say is caught by Tandem itself (activities' BadNodeSetSpecTest).
 */
class BadNodeSetApplyTest {
  private static final String INVALID = "422 NodeSet.tandem.dev \"gpu-a\" is invalid: ";

  static LocalApiServer server;
  static KubernetesClient client;

  @BeforeAll
  static void start() throws IOException {
    server = LocalApiServer.start(0);
    server.installCrd(NodeSet.CRD_RESOURCE.substring(1));
    client = server.client();
    client.resource(generic(valid())).create();
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** The repository's example, as a user would apply it. */
  static ObjectNode valid() {
    ObjectNode n = Fixtures.example();
    ObjectNode meta = (ObjectNode) n.get("metadata");
    meta.remove("uid");
    meta.remove("generation");
    return n;
  }

  static GenericKubernetesResource generic(JsonNode n) {
    return Json.MAPPER.convertValue(n, GenericKubernetesResource.class);
  }

  private static GenericKubernetesResource stored() {
    return NodeSetResources.generic(client).inNamespace("default").withName("gpu-a").get();
  }

  /** Applies the example with {@code value} at {@code path}: "<HTTP code> <API server message>". */
  static String refused(String path, JsonNode value) {
    GenericKubernetesResource before = stored();
    ObjectNode bad = Fixtures.with(valid(), path, value);
    KubernetesClientException e =
        assertThrows(
            KubernetesClientException.class,
            () ->
                NodeSetResources.generic(client)
                    .inNamespace("default")
                    .resource(generic(bad))
                    .fieldValidation(FieldValidateable.Validation.STRICT)
                    .update());
    GenericKubernetesResource after = stored();
    assertEquals(
        before.getMetadata().getResourceVersion(),
        after.getMetadata().getResourceVersion(),
        "nothing stored");
    assertEquals((Object) before.get("spec"), after.get("spec"));
    return e.getCode() + " " + e.getStatus().getMessage();
  }

  static String refused(String path, String text) {
    return refused(path, TextNode.valueOf(text));
  }

  @Test
  void replicasNegative() {
    assertEquals(
        INVALID
            + "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or"
            + " equal to 0",
        refused("spec.replicas", json("-1")));
  }

  @Test
  void replicasNotANumber() {
    assertEquals(
        INVALID
            + "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type"
            + " integer: \"string\"",
        refused("spec.replicas", "three"));
  }

  /** The CRD had no maximum: 100000 was stored and refused only by the workflow. */
  @Test
  void replicasHuge() {
    assertEquals(
        INVALID
            + "spec.replicas: Invalid value: 100000: spec.replicas in body should be less than or"
            + " equal to 2000",
        refused("spec.replicas", json("100000")));
  }

  /** The CRD's pattern accepted gpu:abc. */
  @Test
  void gresWithoutACount() {
    assertEquals(
        INVALID
            + "spec.slurm.gres: Invalid value: \"gpu:abc\": spec.slurm.gres in body should match"
            + " '^[A-Za-z0-9_]+(:[A-Za-z0-9_.-]+)?(:no_consume)?:[0-9]+[KMGTP]?(,[A-Za-z0-9_]+"
            + "(:[A-Za-z0-9_.-]+)?(:no_consume)?:[0-9]+[KMGTP]?)*$'",
        refused("spec.slurm.gres", "gpu:abc"));
  }

  @Test
  void maxUnavailableAbove100Percent() {
    assertEquals(
        INVALID
            + "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: \"150%\":"
            + " spec.updateStrategy.rollingUpdate.maxUnavailable in body should match"
            + " '^([1-9][0-9]*|([1-9][0-9]?|100)%)$'",
        refused("spec.updateStrategy.rollingUpdate.maxUnavailable", "150%"));
  }

  @Test
  void topologyKeyNotALabelKey() {
    assertEquals(
        INVALID
            + "spec.updateStrategy.rollingUpdate.topologyKey: Invalid value: \"block id\":"
            + " spec.updateStrategy.rollingUpdate.topologyKey in body should match '"
            + RollingUpdateSpec.LABEL_KEY_PATTERN
            + "'",
        refused("spec.updateStrategy.rollingUpdate.topologyKey", "block id"));
  }

  @Test
  void maxUnavailableZero() {
    assertEquals(
        INVALID
            + "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0:"
            + " spec.updateStrategy.rollingUpdate.maxUnavailable in body should be greater than"
            + " or equal to 1",
        refused("spec.updateStrategy.rollingUpdate.maxUnavailable", json("0")));
  }

  @Test
  void onTimeoutLater() {
    assertEquals(
        INVALID
            + "spec.drain.onTimeout: Unsupported value: \"LATER\": supported values: \"Force\","
            + " \"Wait\"",
        refused("spec.drain.onTimeout", "LATER"));
  }

  @Test
  void drainTimeoutInParsecs() {
    assertEquals(
        INVALID
            + "spec.drain.timeout: Invalid value: \"5 parsecs\": spec.drain.timeout in body should"
            + " match '^([0-9]{1,9}(s|m|h|d)){1,4}$'",
        refused("spec.drain.timeout", "5 parsecs"));
  }

  @Test
  void emptyPartitionName() {
    assertEquals(
        INVALID
            + "[spec.slurm.partitions[0]: Invalid value: \"\": spec.slurm.partitions[0] in body"
            + " should be at least 1 chars long, spec.slurm.partitions[0]: Invalid value: \"\":"
            + " spec.slurm.partitions[0] in body should match '^[A-Za-z0-9][A-Za-z0-9_.:+-]*$']",
        refused("spec.slurm.partitions", json("[\"\"]")));
  }

  @Test
  void noContainer() {
    assertEquals(
        INVALID
            + "spec.template.spec.containers: Invalid value: 0: spec.template.spec.containers in"
            + " body should have at least 1 items",
        refused("spec.template.spec.containers", json("[]")));
  }

  /** kubectl apply validates strictly by default: an unknown field is refused, not pruned. */
  @Test
  void misspelledReplicas() {
    assertEquals(
        "400 strict decoding error: unknown field \"spec.replica\"",
        refused("spec.replica", json("3")));
  }
}
