package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.autoscaling.v1.Scale;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Custom resources: schema validation, pruning, defaults, status and scale subresources. */
class CustomResourceApiTest extends ApiTestBase {
  private static final String PATH = "/apis/tandem.dev/v1alpha1/namespaces/default/nodesets";

  private static String cr(String name, String spec) {
    return "{\"apiVersion\":\"tandem.dev/v1alpha1\",\"kind\":\"NodeSet\",\"metadata\":{\"name\":\""
        + name
        + "\"},\"spec\":"
        + spec
        + "}";
  }

  @Test
  void invalidCustomResourcesAreRefusedWith422() {
    ApiHttp.Res r =
        http.post(
            PATH,
            cr(
                "bad",
                "{\"replicas\":-1,\"partition\":\"Not_Valid\",\"updateStrategy\":{\"type\":\"Sideways\"},\"drain\":{\"timeout\":\"5 parsecs\"}}"));
    assertEquals(422, r.code(), r.body());
    JsonNode status = r.json();
    assertEquals("Invalid", status.path("reason").asText());
    String msg = status.path("message").asText();
    assertTrue(msg.startsWith("NodeSet.tandem.dev \"bad\" is invalid: ["), msg);
    assertTrue(msg.contains("spec.template: Required value"), msg);
    assertTrue(
        msg.contains(
            "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0"),
        msg);
    assertTrue(
        msg.contains(
            "spec.partition: Invalid value: \"Not_Valid\": spec.partition in body should match '^[a-z][a-z0-9-]*$'"),
        msg);
    assertTrue(
        msg.contains(
            "spec.updateStrategy.type: Unsupported value: \"Sideways\": supported values: \"RollingUpdate\", \"OnDelete\""),
        msg);
    assertTrue(msg.contains("spec.drain.timeout: Invalid value: \"5 parsecs\""), msg);
    assertEquals(5, status.path("details").path("causes").size());
    assertEquals(404, http.get(PATH + "/bad").code(), "nothing was stored");

    ApiHttp.Res type = http.post(PATH, cr("bad2", "{\"template\":{},\"replicas\":\"three\"}"));
    assertEquals(422, type.code());
    assertTrue(type.body().contains("spec.replicas in body must be of type integer"), type.body());
    ApiHttp.Res max = http.post(PATH, cr("bad3", "{\"template\":{},\"replicas\":65}"));
    assertTrue(max.body().contains("should be less than or equal to 64"), max.body());
  }

  @Test
  void typedInformerKeepsWorkingBecauseInvalidObjectsNeverGetIn() {
    AtomicInteger adds = new AtomicInteger();
    SharedIndexInformer<TestNodeSet> inf =
        client
            .resources(TestNodeSet.class)
            .inNamespace("default")
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(TestNodeSet n) {
                    adds.incrementAndGet();
                  }

                  @Override
                  public void onUpdate(TestNodeSet o, TestNodeSet n) {}

                  @Override
                  public void onDelete(TestNodeSet n, boolean unknown) {}
                });
    try {
      int before = adds.get();
      assertEquals(
          422, http.post(PATH, cr("poison", "{\"template\":{},\"replicas\":\"many\"}")).code());
      assertEquals(201, http.post(PATH, cr("fine", "{\"template\":{},\"replicas\":2}")).code());
      await(
          Duration.ofSeconds(5), () -> adds.get() == before + 1, "the informer sees the valid one");
      assertTrue(inf.isRunning());
    } finally {
      inf.close();
    }
  }

  @Test
  void unknownFieldsArePrunedWithWarningsOrRefusedWhenStrict() {
    ApiHttp.Res r =
        http.post(
            PATH, cr("pruned", "{\"template\":{\"anything\":{\"goes\":1}},\"colour\":\"red\"}"));
    assertEquals(201, r.code(), r.body());
    assertTrue(r.json().at("/spec/colour").isMissingNode());
    assertEquals(1, r.json().at("/spec/template/anything/goes").asInt(), "preserve-unknown-fields");
    assertEquals(1, r.json().at("/spec/replicas").asInt(), "schema default applied");
    assertEquals(List.of("299 - \"unknown field \\\"spec.colour\\\"\""), r.warnings());
    ApiHttp.Res strict =
        http.post(
            PATH + "?fieldValidation=Strict", cr("strict", "{\"template\":{},\"colour\":\"red\"}"));
    assertEquals(400, strict.code());
    assertTrue(strict.body().contains("unknown field \\\"spec.colour\\\""), strict.body());
  }

  @Test
  void statusSubresourceKeepsSpecAndMainKeepsStatus() {
    var nodesets = client.resources(TestNodeSet.class).inNamespace("default");
    TestNodeSet n = nodesets.resource(TestNodeSet.of("st", 2)).create();
    TestNodeSet.Status st = new TestNodeSet.Status();
    st.readyReplicas = 2;
    n.setStatus(st);
    n.getSpec().replicas = 9;
    TestNodeSet after = nodesets.resource(n).updateStatus();
    assertEquals(2, after.getSpec().replicas, "status update ignores spec");
    assertEquals(2, after.getStatus().readyReplicas);
    ApiHttp.Res invalidStatus =
        http.patch(
            PATH + "/st/status",
            "application/merge-patch+json",
            "{\"status\":{\"readyReplicas\":\"two\"}}");
    assertEquals(422, invalidStatus.code(), "status is validated too");
    after.getStatus().readyReplicas = 0;
    TestNodeSet main = nodesets.resource(after).update();
    assertEquals(2, main.getStatus().readyReplicas, "main update ignores status");
  }

  @Test
  void scaleSubresource() {
    var nodesets = client.resources(TestNodeSet.class).inNamespace("default");
    nodesets.resource(TestNodeSet.of("sc", 2)).create();
    http.patch(
        PATH + "/sc/status",
        "application/merge-patch+json",
        "{\"status\":{\"replicas\":2,\"selector\":\"tandem.dev/nodeset=sc\"}}");
    Scale s = nodesets.withName("sc").scale();
    assertEquals(2, s.getSpec().getReplicas());
    assertEquals("tandem.dev/nodeset=sc", s.getStatus().getSelector());
    TestNodeSet scaled = nodesets.withName("sc").scale(4);
    assertEquals(4, scaled.getSpec().replicas);
    ApiHttp.Res patch =
        http.patch(
            PATH + "/sc/scale", "application/merge-patch+json", "{\"spec\":{\"replicas\":5}}");
    assertEquals(200, patch.code(), patch.body());
    assertEquals(5, patch.json().at("/spec/replicas").asInt());
    assertEquals("Scale", patch.json().path("kind").asText());
    TestNodeSet now = nodesets.withName("sc").get();
    assertEquals(5, now.getSpec().replicas);
    assertEquals(3L, now.getMetadata().getGeneration(), "each replica change is a spec change");
    ApiHttp.Res stale =
        http.put(
            PATH + "/sc/scale",
            "{\"apiVersion\":\"autoscaling/v1\",\"kind\":\"Scale\",\"metadata\":{\"name\":\"sc\",\"resourceVersion\":\"1\"},\"spec\":{\"replicas\":1}}");
    assertEquals(409, stale.code());
    ApiHttp.Res negative =
        http.patch(
            PATH + "/sc/scale", "application/merge-patch+json", "{\"spec\":{\"replicas\":-1}}");
    assertEquals(422, negative.code());
    ApiHttp.Res tooMany =
        http.patch(
            PATH + "/sc/scale", "application/merge-patch+json", "{\"spec\":{\"replicas\":100}}");
    assertEquals(422, tooMany.code(), "the CR's own schema applies to scale writes");
  }

  @Test
  void deletingTheCrdDeletesItsResources() throws Exception {
    String crd =
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.dev\n"
            + "spec:\n  group: example.dev\n  scope: Cluster\n  names: {plural: widgets, singular: widget, kind: Widget}\n"
            + "  versions:\n  - name: v1\n    served: true\n    storage: true\n"
            + "    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n";
    assertEquals(
        List.of("widgets.example.dev"),
        server.installCrd(
            new java.io.ByteArrayInputStream(
                crd.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    assertEquals(
        201,
        http.post(
                "/apis/example.dev/v1/widgets",
                "{\"apiVersion\":\"example.dev/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"w\"}}")
            .code());
    assertTrue(http.get("/apis").body().contains("example.dev"));
    client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName("widgets.example.dev")
        .delete();
    assertEquals(404, http.get("/apis/example.dev/v1/widgets/w").code());
    assertFalse(http.get("/apis").body().contains("example.dev"));
  }

  @Test
  void crdsAreValidatedAndGetAnEstablishedStatus() {
    var crd =
        client
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName("nodesets.tandem.dev")
            .get();
    assertTrue(
        crd.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Established") && c.getStatus().equals("True")));
    ApiHttp.Res bad =
        http.post(
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            "{\"metadata\":{\"name\":\"wrong.example.dev\"},\"spec\":{\"group\":\"example.dev\",\"scope\":\"Namespaced\",\"names\":{\"plural\":\"things\",\"kind\":\"Thing\"},\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true,\"schema\":{\"openAPIV3Schema\":{\"type\":\"object\"}}}]}}");
    assertEquals(422, bad.code());
    assertTrue(bad.body().contains("must be spec.names.plural+\\\".\\\"+spec.group"), bad.body());
  }

  @Test
  void mergePatchOnCustomResourcesReplacesListsAndDeletesWithNull() {
    var nodesets = client.resources(TestNodeSet.class).inNamespace("default");
    assertEquals(
        201,
        http.post(
                PATH, cr("mp", "{\"template\":{},\"features\":[\"a\",\"b\"],\"partition\":\"p\"}"))
            .code());
    TestNodeSet n =
        nodesets
            .withName("mp")
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"spec\":{\"features\":[\"c\"],\"partition\":null}}");
    assertNull(n.getSpec().partition);
    JsonNode stored = http.get(PATH + "/mp").json();
    assertEquals("[\"c\"]", stored.at("/spec/features").toString());
    KubernetesClientException e =
        assertThrows(
            KubernetesClientException.class,
            () ->
                nodesets
                    .withName("mp")
                    .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"spec\":{\"features\":[\"a\",\"b\",\"c\",\"d\",\"e\"]}}"));
    assertEquals(422, e.getCode());
    List<String> messages = new CopyOnWriteArrayList<>(List.of(e.getMessage()));
    assertTrue(messages.get(0).contains("must have at most 4 items"), messages.get(0));
  }
}
