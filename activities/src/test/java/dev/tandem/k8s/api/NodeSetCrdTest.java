package dev.tandem.k8s.api;

import static dev.tandem.k8s.Fixtures.json;
import static dev.tandem.k8s.Fixtures.with;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.networknt.schema.JsonMetaSchema;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.NonValidationKeyword;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.tandem.k8s.Fixtures;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The CRD the build generated from the Java classes: its structure, and that its schema refuses
 * what it should. CEL rules (x-kubernetes-validations) are only checked for presence here: no
 * JSON-schema validator evaluates them; NodeSetSpecsTest covers the same rules in the converter.
 */
class NodeSetCrdTest {
  private final CustomResourceDefinition crd = Fixtures.crd();
  private final CustomResourceDefinitionVersion v = crd.getSpec().getVersions().get(0);
  private final JsonNode schema = Fixtures.openApiSchema();
  private final JsonNode spec = schema.at("/properties/spec");

  @Test
  void namesScopeAndVersion() {
    assertEquals(NodeSet.CRD_NAME, crd.getMetadata().getName());
    assertEquals("tandem.dev", crd.getSpec().getGroup());
    assertEquals("Namespaced", crd.getSpec().getScope());
    assertEquals("NodeSet", crd.getSpec().getNames().getKind());
    assertEquals("nodesets", crd.getSpec().getNames().getPlural());
    assertEquals("nodeset", crd.getSpec().getNames().getSingular());
    assertEquals(List.of("nds"), crd.getSpec().getNames().getShortNames());
    assertEquals(List.of("tandem"), crd.getSpec().getNames().getCategories());
    assertEquals(1, crd.getSpec().getVersions().size());
    assertEquals("v1alpha1", v.getName());
    assertTrue(v.getServed());
    assertTrue(v.getStorage());
  }

  @Test
  void statusAndScaleSubresources() {
    assertNotNull(v.getSubresources().getStatus(), "status subresource");
    var scale = v.getSubresources().getScale();
    assertNotNull(scale, "scale subresource");
    assertEquals(".spec.replicas", scale.getSpecReplicasPath());
    assertEquals(".status.replicas", scale.getStatusReplicasPath());
    assertEquals(".status.selector", scale.getLabelSelectorPath());
  }

  @Test
  void printerColumns() {
    // The generator sorts columns by JSON path, so Age (metadata) comes first.
    Map<String, String> cols =
        v.getAdditionalPrinterColumns().stream()
            .collect(
                Collectors.toMap(
                    CustomResourceColumnDefinition::getName,
                    c -> c.getJsonPath() + " " + c.getType()));
    assertEquals(
        Map.of(
            "Replicas", ".spec.replicas integer",
            "Ready", ".status.readyReplicas integer",
            "Updated", ".status.updatedReplicas integer",
            "Revision", ".status.updateRevision string",
            "Age", ".metadata.creationTimestamp date"),
        cols);
  }

  @Test
  void schemaDeclaresTheRules() {
    assertEquals(Set.of("replicas", "template"), texts(spec.get("required")));
    assertEquals(0, spec.at("/properties/replicas/minimum").asInt());
    assertEquals(
        Set.of("RollingUpdate", "OnDelete"),
        texts(spec.at("/properties/updateStrategy/properties/type/enum")));
    for (String drain : List.of("drain", "scaleDown")) {
      JsonNode d = spec.at("/properties/" + drain);
      assertEquals(Set.of("Wait", "Force"), texts(d.at("/properties/onTimeout/enum")));
      assertEquals(DrainSpec.DURATION_PATTERN, d.at("/properties/timeout/pattern").asText());
      assertTrue(d.at("/x-kubernetes-validations/0/rule").asText().contains("Force"));
    }
    JsonNode mu =
        spec.at("/properties/updateStrategy/properties/rollingUpdate/properties/maxUnavailable");
    assertTrue(mu.path("x-kubernetes-int-or-string").asBoolean(), mu.toString());
    assertEquals(RollingUpdateSpec.MAX_UNAVAILABLE_PATTERN, mu.path("pattern").asText());
    assertEquals(1, mu.path("minimum").asInt());
    JsonNode ru = spec.at("/properties/updateStrategy/properties/rollingUpdate");
    assertEquals(
        RollingUpdateSpec.LABEL_KEY_PATTERN,
        ru.at("/properties/topologyKey/pattern").asText(),
        ru.toString());
    assertEquals(Set.of("idleFirst", "name"), texts(ru.at("/properties/domainOrder/enum")));
    assertTrue(ru.at("/x-kubernetes-validations/0/rule").asText().contains("topologyKey"));
    assertTrue(
        spec.at("/properties/updateStrategy/x-kubernetes-validations/0/rule")
            .asText()
            .contains("RollingUpdate"));
    // The template keeps everything it is given (see NodeSetSpec for why) but checks its shape.
    JsonNode t = spec.at("/properties/template");
    assertTrue(t.path("x-kubernetes-preserve-unknown-fields").asBoolean());
    assertEquals(Set.of("containers"), texts(t.at("/properties/spec/required")));
    assertEquals(
        Set.of("name", "image"),
        texts(t.at("/properties/spec/properties/containers/items/required")));
    assertEquals(".status.selector", v.getSubresources().getScale().getLabelSelectorPath());
    assertEquals("string", schema.at("/properties/status/properties/selector/type").asText());
  }

  /** Kubernetes refuses a non-structural schema; check the rule that matters here. */
  @Test
  void schemaIsStructural() {
    List<String> bad = new ArrayList<>();
    structural(schema, "", bad);
    assertEquals(List.of(), bad);
  }

  @Test
  void theExampleIsValid() {
    assertEquals(Set.of(), validate(Fixtures.example()));
  }

  @Test
  void schemaRefusesWhatItCanSay() {
    assertInvalid("spec.replicas", json("-1"));
    assertInvalid("spec.replicas", null);
    assertInvalid("spec.replicas", TextNode.valueOf("3"));
    assertInvalid("spec.drain.timeout", TextNode.valueOf("5 parsecs"));
    assertInvalid("spec.drain.timeout", TextNode.valueOf("30"));
    assertInvalid("spec.scaleDown.onTimeout", TextNode.valueOf("Kill"));
    assertInvalid("spec.updateStrategy.type", TextNode.valueOf("Rolling"));
    assertInvalid("spec.updateStrategy.rollingUpdate.maxUnavailable", json("0"));
    assertInvalid("spec.updateStrategy.rollingUpdate.maxUnavailable", TextNode.valueOf("0%"));
    assertInvalid("spec.updateStrategy.rollingUpdate.maxUnavailable", TextNode.valueOf("101%"));
    assertInvalid("spec.updateStrategy.rollingUpdate.maxUnavailable", TextNode.valueOf("lots"));
    assertInvalid("spec.updateStrategy.rollingUpdate.topologyKey", TextNode.valueOf("block id"));
    assertInvalid("spec.updateStrategy.rollingUpdate.domainOrder", TextNode.valueOf("random"));
    assertInvalid("spec.slurm.features", json("[\"h100\", \"has space\"]"));
    assertInvalid("spec.slurm.partitions", json("[\"gpu,cpu\"]"));
    assertInvalid("spec.slurm.gres", TextNode.valueOf("gpu: 8"));
    assertInvalid("spec.slurm.weight", json("0"));
    assertInvalid("spec.template.spec.containers", json("[]"));
    assertInvalid("spec.template.spec.containers", json("[{\"name\":\"slurmd\"}]"));
    assertInvalid("spec.template.spec", null);
  }

  @Test
  void remediationSchemaRefusesWhatItCanSay() {
    assertInvalid("spec.remediation.steps", json("[]"));
    assertInvalid("spec.remediation.steps", json("[{\"action\":\"Reimage\"}]"));
    assertInvalid("spec.remediation.steps", json("[{\"timeout\":\"5m\"}]"));
    assertInvalid(
        "spec.remediation.steps",
        json(
            "[{\"action\":\"Reboot\"},{\"action\":\"Replace\"},"
                + "{\"action\":\"RestartSlurmd\"},{\"action\":\"Reboot\"}]"));
    assertInvalid("spec.remediation.notReadyFor", TextNode.valueOf("5 minutes"));
    assertInvalid("spec.remediation.jobs.onTimeout", TextNode.valueOf("Kill"));
    assertInvalid("spec.remediation.replace.mode", TextNode.valueOf("Terminate"));
    assertInvalid("spec.remediation.budget.maxPerNodeSet", json("0"));
    assertInvalid("spec.remediation.budget.maxPerDomain", json("0"));
    assertInvalid("spec.remediation.enabled", TextNode.valueOf("yes"));
    // Each action once, and maxPerDomain only with domainLabel: CEL, present for the API server.
    JsonNode r = spec.at("/properties/remediation");
    assertTrue(
        r.at("/properties/steps/x-kubernetes-validations/0/rule").asText().contains("exists_one"));
    assertEquals(3, r.at("/properties/steps/maxItems").asInt(), "bounds the CEL rule's cost");
    assertTrue(
        r.at("/properties/budget/x-kubernetes-validations/0/rule")
            .asText()
            .contains("domainLabel"));
  }

  @Test
  void autoscalingSchemaDeclaresItsBoundsAndDefaults() {
    JsonNode a = spec.at("/properties/autoscaling");
    assertEquals("object", a.path("type").asText());
    assertEquals(Set.of("maxReplicas"), texts(a.get("required")));
    // The bounds of replicas themselves: an autoscaler cannot ask for more than replicas allows.
    JsonNode replicas = spec.at("/properties/replicas");
    assertEquals(2000, replicas.path("maximum").asInt());
    assertEquals(replicas.path("maximum"), a.at("/properties/maxReplicas/maximum"));
    assertEquals(replicas.path("maximum"), a.at("/properties/minReplicas/maximum"));
    assertEquals(1, a.at("/properties/maxReplicas/minimum").asInt());
    assertEquals(0, a.at("/properties/minReplicas/minimum").asInt());
    assertEquals("integer", a.at("/properties/minReplicas/type").asText());
    assertEquals("integer", a.at("/properties/maxReplicas/type").asText());
    assertEquals(json("0"), a.at("/properties/minReplicas/default"));
    for (String d : List.of("idleTime", "scaleUpDelay")) {
      assertEquals(DrainSpec.DURATION_PATTERN, a.at("/properties/" + d + "/pattern").asText(), d);
      assertEquals("string", a.at("/properties/" + d + "/type").asText(), d);
    }
    assertEquals("10m", a.at("/properties/idleTime/default").asText());
    assertEquals("5s", a.at("/properties/scaleUpDelay/default").asText());
    assertEquals(
        "!has(self.minReplicas) || self.minReplicas <= self.maxReplicas",
        a.at("/x-kubernetes-validations/0/rule").asText());
    assertEquals(
        "minReplicas must not be more than maxReplicas",
        a.at("/x-kubernetes-validations/0/message").asText());
  }

  @Test
  void autoscalingSchemaRefusesWhatItCanSay() {
    assertInvalid("spec.autoscaling", json("{}"));
    assertInvalid("spec.autoscaling", json("{\"minReplicas\":1}"));
    assertInvalid("spec.autoscaling.maxReplicas", json("0"));
    assertInvalid("spec.autoscaling.maxReplicas", json("2001"));
    assertInvalid("spec.autoscaling.maxReplicas", json("2.5"));
    assertInvalid("spec.autoscaling.maxReplicas", TextNode.valueOf("8"));
    assertInvalid("spec.autoscaling.minReplicas", json("-1"));
    assertInvalid("spec.autoscaling.idleTime", TextNode.valueOf("ten minutes"));
    assertInvalid("spec.autoscaling.idleTime", json("600"));
    assertInvalid("spec.autoscaling.scaleUpDelay", TextNode.valueOf("-5s"));
    assertInvalid("spec.autoscaling", json("8"));
  }

  @Test
  void autoscalingSchemaAcceptsAMinimalAndAFullBlock() {
    assertValid("spec.autoscaling", json("{\"maxReplicas\":8}"));
    assertValid(
        "spec.autoscaling",
        json(
            "{\"minReplicas\":2,\"maxReplicas\":2000,\"idleTime\":\"1h30m\","
                + "\"scaleUpDelay\":\"0s\"}"));
  }

  @Test
  void remediationSchemaAcceptsAFullPolicyAndAnEmptyOne() {
    assertValid("spec.remediation", json("{}"));
    assertValid(
        "spec.remediation",
        json(
            "{\"enabled\":true,\"notReadyFor\":\"2m\",\"conditions\":[\"GpuUnhealthy\"],"
                + "\"slurmReasons\":[\"xid\"],\"steps\":[{\"action\":\"Reboot\","
                + "\"timeout\":\"20m\"}],\"jobs\":{\"timeout\":\"1h\",\"onTimeout\":"
                + "\"Wait\"},\"recheckEvery\":\"15s\",\"replace\":{\"mode\":\"Delete\"},"
                + "\"budget\":{\"maxPerNodeSet\":2,\"domainLabel\":\"rack\","
                + "\"maxPerDomain\":1}}"));
  }

  @Test
  void schemaAcceptsTheOtherForms() {
    assertValid("spec.updateStrategy.rollingUpdate.maxUnavailable", json("3"));
    assertValid("spec.updateStrategy.rollingUpdate.maxUnavailable", TextNode.valueOf("25%"));
    assertValid("spec.updateStrategy.rollingUpdate.maxUnavailable", TextNode.valueOf("100%"));
    assertValid(
        "spec.updateStrategy.rollingUpdate.topologyKey",
        TextNode.valueOf("topology.tandem.dev/block"));
    assertValid("spec.drain.timeout", TextNode.valueOf("1h30m"));
    assertValid("spec.drain.timeout", TextNode.valueOf("3d"));
    assertValid("spec.replicas", json("0"));
    assertValid("spec.slurm.gres", TextNode.valueOf("gpu:h100:8,nvme:1"));
    // Anything a pod template may hold passes through (the API server checks it on pod create).
    assertValid("spec.template.spec.hostNetwork", json("true"));
    assertValid(
        "spec.template.spec.containers", json("[{\"name\":\"a\",\"image\":\"b\",\"x\":1}]"));
  }

  private void assertInvalid(String path, JsonNode value) {
    ObjectNode n = with(Fixtures.example(), path, value);
    assertFalse(validate(n).isEmpty(), path + "=" + value + " should be refused");
  }

  private void assertValid(String path, JsonNode value) {
    ObjectNode n = with(Fixtures.example(), path, value);
    assertEquals(Set.of(), validate(n), path + "=" + value);
  }

  private Set<ValidationMessage> validate(JsonNode instance) {
    return validator().validate(instance);
  }

  /**
   * A draft-4 validator (OpenAPI v3's schema objects are draft-4 with extensions) that knows the
   * Kubernetes extensions as annotations, so it neither warns about them nor evaluates them.
   */
  private JsonSchema validator() {
    JsonMetaSchema v4 = JsonMetaSchema.getV4();
    JsonMetaSchema.Builder meta = JsonMetaSchema.builder(v4.getIri(), v4);
    for (String k :
        List.of(
            "x-kubernetes-validations",
            "x-kubernetes-preserve-unknown-fields",
            "x-kubernetes-int-or-string")) {
      meta.keyword(new NonValidationKeyword(k));
    }
    JsonSchemaFactory factory =
        JsonSchemaFactory.builder(JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4))
            .metaSchema(meta.build())
            .build();
    return factory.getSchema(schema);
  }

  /**
   * Every schema node states its type, except int-or-string nodes and nodes that preserve unknown
   * fields (which Kubernetes allows without one).
   */
  private static void structural(JsonNode s, String path, List<String> bad) {
    boolean exempt =
        s.path("x-kubernetes-int-or-string").asBoolean()
            || s.path("x-kubernetes-preserve-unknown-fields").asBoolean();
    if (!s.has("type") && !exempt) {
      bad.add(path + ": no type");
    }
    if (s.has("properties") && !"object".equals(s.path("type").asText())) {
      bad.add(path + ": properties without type object");
    }
    for (Map.Entry<String, JsonNode> e : s.path("properties").properties()) {
      structural(e.getValue(), path + "." + e.getKey(), bad);
    }
    if (s.has("items")) {
      structural(s.get("items"), path + "[]", bad);
    }
    if (s.has("additionalProperties") && s.get("additionalProperties").isObject()) {
      structural(s.get("additionalProperties"), path + "{}", bad);
    }
  }

  private static Set<String> texts(JsonNode array) {
    Set<String> out = new java.util.HashSet<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
