package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The store's index ({@link StoreIndex}) against a scan of the mock's map ({@link StoreOracle})
 * after every kind of write the local API makes: create, update, the three patches, status, bind,
 * graceful and final deletion, delete-collection, garbage collection, namespace and CRD deletion.
 * Labels are part of the mock's key, so relabelling replaces the key the index must follow.
 */
class StoreIndexTest extends ApiTestBase {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private static void namespace(String ns) {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
  }

  private static void consistent() {
    assertTrue(server.awaitGarbageCollector(WAIT), "garbage collector idle");
    StoreOracle.assertConsistent(server);
  }

  @Test
  void everyWriteOfAPodKeepsTheIndexInStep() {
    namespace("idx-writes");
    String ns = "idx-writes";
    var pods = client.pods().inNamespace(ns);
    createPod(ns, "p-b", Map.of("app", "a"));
    createPod(ns, "p-a", Map.of("app", "a", "tier", "x"));
    consistent();
    pods.withName("p-b")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"labels\":{\"app\":\"b\"}}}");
    pods.withName("p-b")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"metadata\":{\"labels\":{\"tier\":\"y\"}}}");
    pods.withName("p-b")
        .patch(
            PatchContext.of(PatchType.JSON),
            "[{\"op\":\"remove\",\"path\":\"/metadata/labels/app\"}]");
    Pod a = pods.withName("p-a").get();
    a.getMetadata().getLabels().put("app", "c");
    pods.resource(a).update();
    pods.withName("p-a")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"}]}}");
    consistent();
    assertEquals(Map.of("tier", "y"), pods.withName("p-b").get().getMetadata().getLabels());
    assertEquals(1, pods.withLabel("app", "c").list().getItems().size());
    assertEquals(0, pods.withLabel("app", "a").list().getItems().size());

    ApiHttp.Res bind =
        http.post(
            "/api/v1/namespaces/" + ns + "/pods/p-a/binding",
            "{\"kind\":\"Binding\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p-a\"},"
                + "\"target\":{\"kind\":\"Node\",\"name\":\"n1\"}}");
    assertEquals(201, bind.code(), bind.body());
    pods.withName("p-a").delete(); // bound: graceful, it stays with a deletionTimestamp
    consistent();
    assertTrue(pods.withName("p-a").get().getMetadata().getDeletionTimestamp() != null);
    pods.withName("p-a").withGracePeriod(0).delete();
    pods.withName("p-b").delete();
    consistent();
    assertTrue(pods.list().getItems().isEmpty());

    for (int i = 0; i < 5; i++) {
      createPod(ns, "dc-" + i, Map.of("batch", i % 2 == 0 ? "even" : "odd"));
    }
    pods.withLabel("batch", "even").delete();
    consistent();
    assertEquals(
        List.of("dc-1", "dc-3"),
        pods.list().getItems().stream().map(p -> p.getMetadata().getName()).toList());
  }

  @Test
  void listsComeInNamespaceAndNameOrder() {
    namespace("idx-order-b");
    namespace("idx-order-a");
    for (String name : List.of("z", "b", "m", "a")) {
      createPod("idx-order-b", name, Map.of("order", "yes"));
      createPod("idx-order-a", name, Map.of("order", "yes"));
    }
    List<String> seen = new ArrayList<>();
    for (JsonNode p : http.get("/api/v1/pods?labelSelector=order%3Dyes").json().path("items")) {
      seen.add(p.at("/metadata/namespace").asText() + "/" + p.at("/metadata/name").asText());
    }
    assertEquals(
        List.of(
            "idx-order-a/a",
            "idx-order-a/b",
            "idx-order-a/m",
            "idx-order-a/z",
            "idx-order-b/a",
            "idx-order-b/b",
            "idx-order-b/m",
            "idx-order-b/z"),
        seen);
    consistent();
  }

  /** A LIST pinned by metadata.name looks the name up per namespace: same answers as a walk. */
  @Test
  void aListPinnedByNameAnswersAsAWalkDoes() {
    namespace("idx-pin-b");
    namespace("idx-pin-a");
    for (String ns : List.of("idx-pin-b", "idx-pin-a")) {
      createPod(ns, "pin-m", Map.of("pin", "yes"));
      createPod(ns, "pin-n", Map.of("pin", "yes"));
    }
    JsonNode all = http.get("/api/v1/pods?fieldSelector=metadata.name%3Dpin-m").json();
    assertEquals(2, all.path("items").size(), all.toString());
    assertEquals("idx-pin-a", all.at("/items/0/metadata/namespace").asText());
    assertEquals("idx-pin-b", all.at("/items/1/metadata/namespace").asText());
    JsonNode one =
        http.get("/api/v1/namespaces/idx-pin-b/pods?fieldSelector=metadata.name%3Dpin-m").json();
    assertEquals(1, one.path("items").size(), one.toString());
    assertEquals(
        0,
        http.get("/api/v1/pods?labelSelector=pin%3Dno&fieldSelector=metadata.name%3Dpin-m")
            .json()
            .path("items")
            .size());
    JsonNode page =
        http.get("/api/v1/pods?fieldSelector=metadata.name%3Dpin-m,metadata.namespace%3Didx-pin-b")
            .json();
    assertEquals(1, page.path("items").size(), page.toString());
    JsonNode first = http.get("/api/v1/pods?fieldSelector=metadata.name%3Dpin-m&limit=1").json();
    assertEquals("idx-pin-a", first.at("/items/0/metadata/namespace").asText());
    assertEquals(1, first.at("/metadata/remainingItemCount").asInt());
    JsonNode second =
        http.get(
                "/api/v1/pods?fieldSelector=metadata.name%3Dpin-m&limit=1&continue="
                    + first.at("/metadata/continue").asText())
            .json();
    assertEquals(1, second.path("items").size(), second.toString());
    assertEquals("idx-pin-b", second.at("/items/0/metadata/namespace").asText());
  }

  @Test
  void garbageCollectionAndNamespaceDeletionKeepTheIndexInStep() {
    namespace("idx-gc");
    String ns = "idx-gc";
    Pod owner = createPod(ns, "owner", Map.of());
    for (int i = 0; i < 3; i++) {
      client
          .pods()
          .inNamespace(ns)
          .resource(
              new PodBuilder(pod("dep-" + i, Map.of("dep", "yes")))
                  .editMetadata()
                  .withOwnerReferences(
                      new OwnerReferenceBuilder()
                          .withApiVersion("v1")
                          .withKind("Pod")
                          .withName("owner")
                          .withUid(owner.getMetadata().getUid())
                          .build())
                  .endMetadata()
                  .build())
          .create();
    }
    createPod(ns, "bystander", Map.of());
    client.pods().inNamespace(ns).withName("owner").delete();
    consistent();
    assertEquals(
        List.of("bystander"),
        client.pods().inNamespace(ns).list().getItems().stream()
            .map(p -> p.getMetadata().getName())
            .toList());

    client.configMaps().inNamespace(ns).resource(configMap("cm")).create();
    client.namespaces().withName(ns).delete();
    await(WAIT, () -> client.namespaces().withName(ns).get() == null, "namespace gone");
    consistent();
    assertTrue(client.pods().inNamespace(ns).list().getItems().isEmpty());
  }

  @Test
  void deletingACrdTakesItsResourcesOutOfTheIndex() {
    String crd =
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
            + "  name: gadgets.example.dev\nspec:\n  group: example.dev\n  scope: Namespaced\n"
            + "  names: {plural: gadgets, singular: gadget, kind: Gadget}\n  versions:\n"
            + "  - name: v1\n    served: true\n    storage: true\n"
            + "    schema: {openAPIV3Schema: {type: object,"
            + " x-kubernetes-preserve-unknown-fields: true}}\n";
    server.installCrd(new ByteArrayInputStream(crd.getBytes(StandardCharsets.UTF_8)));
    for (String n : List.of("g2", "g1")) {
      ApiHttp.Res r =
          http.post(
              "/apis/example.dev/v1/namespaces/default/gadgets",
              "{\"apiVersion\":\"example.dev/v1\",\"kind\":\"Gadget\",\"metadata\":{\"name\":\""
                  + n
                  + "\",\"labels\":{\"k\":\"v\"}}}");
      assertEquals(201, r.code(), r.body());
    }
    consistent();
    JsonNode list = http.get("/apis/example.dev/v1/namespaces/default/gadgets").json();
    assertEquals("g1", list.at("/items/0/metadata/name").asText());
    client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName("gadgets.example.dev")
        .delete();
    consistent();
    assertEquals(404, http.get("/apis/example.dev/v1/namespaces/default/gadgets/g1").code());
  }

  private static ConfigMap configMap(String name) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .addToData("k", "v")
        .build();
  }

  @Test
  void aGetAnswersTheStoredObjectAndNoneForAnUnknownName() {
    createPod("default", "idx-get", Map.of("x", "1"));
    ApiHttp.Res r = http.get("/api/v1/namespaces/default/pods/idx-get");
    assertEquals(200, r.code());
    assertEquals("1", r.json().at("/metadata/labels/x").asText());
    assertEquals(404, http.get("/api/v1/namespaces/default/pods/idx-none").code());
    assertNull(client.pods().inNamespace("kube-system").withName("idx-get").get());
  }
}
