package dev.tandem.devstack.catalogue;

import static dev.tandem.k8s.Fixtures.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.tandem.devstack.kube.LocalKubernetes;
import dev.tandem.devstack.kube.SharedKubernetes;
import dev.tandem.devstack.kube.TestNamespace;
import dev.tandem.k8s.Fixtures;
import dev.tandem.k8s.Json;
import dev.tandem.k8s.NodeSetResources;
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
 * Bad-input catalogue (docs/reliability.md): malformed NodeSets applied to the real API server with
 * the CRD the build generates, as {@code kubectl apply} sends them (strict field validation). The
 * API server refuses each, by the CRD's schema or its CEL rules, with the message asserted here,
 * which is what {@code kubectl apply} prints after {@code Error from server}; the NodeSet stored
 * before stays exactly as it was (same resourceVersion), so Tandem never sees the bad spec. What
 * the schema cannot say is caught by Tandem itself (activities' BadNodeSetSpecTest).
 */
class BadNodeSetApplyTest {
  private static final String INVALID = "422 NodeSet.tandem.dev \"gpu-a\" is invalid: ";

  /** Added when a schema error keeps the CRD's CEL rules from being evaluated. */
  private static final String NOT_CHECKED =
      "<nil>: Invalid value: null: some validation rules were not checked because the object was"
          + " invalid; correct the existing errors to complete validation";

  static KubernetesClient client;
  static TestNamespace namespace;

  @BeforeAll
  static void start() throws IOException {
    LocalKubernetes kube = SharedKubernetes.get();
    client = kube.adminClient();
    kube.installNodeSetCrd(client);
    namespace = TestNamespace.create(client, "bad-nodeset");
    client.resource(generic(valid())).create();
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      namespace.close();
      client.close();
    }
  }

  /** The repository's example, as a user would apply it. */
  static ObjectNode valid() {
    ObjectNode n = Fixtures.example();
    ObjectNode meta = (ObjectNode) n.get("metadata");
    meta.remove("uid");
    meta.remove("generation");
    meta.put("namespace", namespace.name());
    return n;
  }

  static GenericKubernetesResource generic(JsonNode n) {
    return Json.MAPPER.convertValue(n, GenericKubernetesResource.class);
  }

  private static GenericKubernetesResource stored() {
    return NodeSetResources.generic(client).inNamespace(namespace.name()).withName("gpu-a").get();
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
                    .inNamespace(namespace.name())
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
            + "[spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or"
            + " equal to 0, .spec.replicas: Invalid value: -1: should be a non-negative integer]",
        refused("spec.replicas", json("-1")));
  }

  @Test
  void replicasNotANumber() {
    assertEquals(
        INVALID
            + "[spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type"
            + " integer: \"string\", .spec.replicas: Invalid value: 0: .spec.replicas accessor"
            + " error: three is of the type string, expected int64, "
            + NOT_CHECKED
            + "]",
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
            + "[spec.drain.onTimeout: Unsupported value: \"LATER\": supported values: \"Force\","
            + " \"Wait\", "
            + NOT_CHECKED
            + "]",
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
            + "spec.slurm.partitions[0]: Invalid value: \"\": spec.slurm.partitions[0] in body"
            + " should be at least 1 chars long",
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

  @Test
  void autoscalingWithoutMaxReplicas() {
    assertEquals(
        INVALID + "[spec.autoscaling.maxReplicas: Required value, " + NOT_CHECKED + "]",
        refused("spec.autoscaling", json("{\"minReplicas\":1}")));
  }

  @Test
  void autoscalingMaxReplicasZero() {
    assertEquals(
        INVALID
            + "spec.autoscaling.maxReplicas: Invalid value: 0: spec.autoscaling.maxReplicas in body"
            + " should be greater than or equal to 1",
        refused("spec.autoscaling", json("{\"maxReplicas\":0}")));
  }

  @Test
  void autoscalingIdleTimeInWords() {
    assertEquals(
        INVALID
            + "spec.autoscaling.idleTime: Invalid value: \"ten minutes\": spec.autoscaling.idleTime"
            + " in body should match '^([0-9]{1,9}(s|m|h|d)){1,4}$'",
        refused("spec.autoscaling", json("{\"maxReplicas\":4,\"idleTime\":\"ten minutes\"}")));
  }

  /** kubectl apply validates strictly by default: an unknown field is refused, not pruned. */
  @Test
  void misspelledReplicas() {
    assertEquals(
        "400 NodeSet in version \"v1alpha1\" cannot be handled as a NodeSet: strict decoding"
            + " error: unknown field \"spec.replica\"",
        refused("spec.replica", json("3")));
  }

  // The CRD's CEL rules (x-kubernetes-validations): the API server evaluates them, the schema's
  // types and patterns alone cannot say these.

  @Test
  void scaleDownForceWithoutATimeout() {
    assertEquals(
        INVALID
            + "spec.scaleDown: Invalid value: onTimeout Force needs a timeout, e.g."
            + " timeout: 2h",
        refused("spec.scaleDown.timeout", (JsonNode) null));
  }

  @Test
  void remediationBudgetPerDomainWithoutItsLabel() {
    assertEquals(
        INVALID
            + "spec.remediation.budget: Invalid value: maxPerDomain needs domainLabel,"
            + " the node label naming the domain",
        refused("spec.remediation", json("{\"budget\":{\"maxPerDomain\":1}}")));
  }

  @Test
  void remediationStepTwice() {
    assertEquals(
        INVALID
            + "spec.remediation.steps: Invalid value: each action may appear once in"
            + " steps",
        refused(
            "spec.remediation",
            json("{\"steps\":[{\"action\":\"Reboot\"},{\"action\":\"Reboot\"}]}")));
  }

  @Test
  void autoscalingMinAboveMax() {
    assertEquals(
        INVALID + "spec.autoscaling: Invalid value: minReplicas must not be more than maxReplicas",
        refused("spec.autoscaling", json("{\"minReplicas\":5,\"maxReplicas\":2}")));
  }

  @Test
  void domainOrderWithoutATopologyKey() {
    assertEquals(
        INVALID
            + "spec.updateStrategy.rollingUpdate: Invalid value: domainOrder needs"
            + " topologyKey, the node label naming the domain",
        refused("spec.updateStrategy.rollingUpdate.domainOrder", "name"));
  }

  @Test
  void rollingUpdateSettingsOnDelete() {
    assertEquals(
        INVALID
            + "spec.updateStrategy: Invalid value: rollingUpdate is only allowed with"
            + " type RollingUpdate",
        refused("spec.updateStrategy.type", "OnDelete"));
  }
}
