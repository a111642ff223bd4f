package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Create/update/patch/delete semantics a real API server has and the plain mock lacks. */
class CrudSemanticsTest extends ApiTestBase {

  @Test
  void createFillsServerMetadataAndPodDefaults() {
    Pod p = createPod("default", "defaults", Map.of());
    assertNotNull(p.getMetadata().getUid());
    assertNotNull(p.getMetadata().getCreationTimestamp());
    assertTrue(Long.parseLong(p.getMetadata().getResourceVersion()) > 0);
    assertEquals("default-scheduler", p.getSpec().getSchedulerName());
    assertEquals("Always", p.getSpec().getRestartPolicy());
    assertEquals(30L, p.getSpec().getTerminationGracePeriodSeconds());
    assertEquals("Pending", p.getStatus().getPhase(), "a status sent on create is replaced");
    assertEquals("BestEffort", p.getStatus().getQosClass());
  }

  @Test
  void createRefusals() {
    KubernetesClientException missingNs =
        assertThrows(KubernetesClientException.class, () -> createPod("nowhere", "p", Map.of()));
    assertEquals(404, missingNs.getCode());
    assertTrue(
        missingNs.getMessage().contains("namespaces \"nowhere\" not found"),
        missingNs.getMessage());

    createPod("default", "twice", Map.of());
    KubernetesClientException dup =
        assertThrows(
            KubernetesClientException.class, () -> createPod("default", "twice", Map.of()));
    assertEquals(409, dup.getCode());
    assertTrue(dup.getMessage().contains("pods \"twice\" already exists"), dup.getMessage());

    // Raw HTTP: the API server answers 500 here, which fabric8 would retry for seconds.
    ApiHttp.Res rv =
        http.post(
            "/api/v1/namespaces/default/configmaps",
            "{\"metadata\":{\"name\":\"with-rv\",\"resourceVersion\":\"12\"}}");
    assertEquals(500, rv.code());
    assertTrue(rv.body().contains("resourceVersion should not be set"), rv.body());

    Pod noContainers =
        new PodBuilder()
            .withNewMetadata()
            .withName("empty")
            .endMetadata()
            .withNewSpec()
            .endSpec()
            .build();
    KubernetesClientException invalid =
        assertThrows(
            KubernetesClientException.class,
            () -> client.pods().inNamespace("default").resource(noContainers).create());
    assertEquals(422, invalid.getCode());
    assertTrue(
        invalid.getMessage().contains("spec.containers: Required value"), invalid.getMessage());

    ApiHttp.Res badName =
        http.post(
            "/api/v1/namespaces/default/configmaps",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"Bad_Name\"}}");
    assertEquals(422, badName.code());
    assertTrue(badName.body().contains("RFC 1123 subdomain"), badName.body());

    ApiHttp.Res wrongKind =
        http.post(
            "/api/v1/namespaces/default/configmaps",
            "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"x\"}}");
    assertEquals(400, wrongKind.code());
  }

  @Test
  void generateNameGivesARandomSuffix() {
    ConfigMap cm =
        client
            .configMaps()
            .inNamespace("default")
            .resource(
                new ConfigMapBuilder()
                    .withNewMetadata()
                    .withGenerateName("gen-")
                    .endMetadata()
                    .build())
            .create();
    assertTrue(cm.getMetadata().getName().matches("gen-[a-z0-9]{5}"), cm.getMetadata().getName());
  }

  @Test
  void staleResourceVersionIsAConflictOnEveryPath() {
    Pod p = createPod("default", "optimistic", Map.of());
    String stale = p.getMetadata().getResourceVersion();
    client
        .pods()
        .inNamespace("default")
        .withName("optimistic")
        .edit(x -> new PodBuilder(x).editMetadata().addToLabels("a", "1").endMetadata().build());

    Pod update =
        new PodBuilder(p)
            .editMetadata()
            .withResourceVersion(stale)
            .addToLabels("b", "2")
            .endMetadata()
            .build();
    KubernetesClientException main =
        assertThrows(
            KubernetesClientException.class,
            () -> client.pods().inNamespace("default").resource(update).update());
    assertEquals(409, main.getCode());

    Pod statusUpdate =
        new PodBuilder(p)
            .editMetadata()
            .withResourceVersion(stale)
            .endMetadata()
            .editStatus()
            .withPhase("Running")
            .endStatus()
            .build();
    KubernetesClientException status =
        assertThrows(
            KubernetesClientException.class,
            () -> client.pods().inNamespace("default").resource(statusUpdate).updateStatus());
    assertEquals(409, status.getCode(), "the plain mock accepted stale /status writes");

    ApiHttp.Res patch =
        http.patch(
            "/api/v1/namespaces/default/pods/optimistic/status",
            "application/merge-patch+json",
            "{\"metadata\":{\"resourceVersion\":\""
                + stale
                + "\"},\"status\":{\"phase\":\"Running\"}}");
    assertEquals(409, patch.code(), patch.body());
    assertEquals("Conflict", patch.json().path("reason").asText());
    assertEquals(
        "Pending",
        client.pods().inNamespace("default").withName("optimistic").get().getStatus().getPhase());
  }

  @Test
  void statusSubresourceIsolation() {
    createPod("default", "iso", Map.of());
    Pod cur = client.pods().inNamespace("default").withName("iso").get();
    // A main-resource update cannot change status...
    Pod viaMain =
        client
            .pods()
            .inNamespace("default")
            .resource(
                new PodBuilder(cur)
                    .editStatus()
                    .withPhase("Running")
                    .endStatus()
                    .editMetadata()
                    .addToLabels("x", "y")
                    .endMetadata()
                    .build())
            .update();
    assertEquals("Pending", viaMain.getStatus().getPhase());
    assertEquals("y", viaMain.getMetadata().getLabels().get("x"));
    // ...and a status update cannot change anything else.
    Pod viaStatus =
        client
            .pods()
            .inNamespace("default")
            .resource(
                new PodBuilder(viaMain)
                    .editStatus()
                    .withPhase("Running")
                    .endStatus()
                    .editMetadata()
                    .addToLabels("x", "z")
                    .endMetadata()
                    .build())
            .updateStatus();
    assertEquals("Running", viaStatus.getStatus().getPhase());
    assertEquals("y", viaStatus.getMetadata().getLabels().get("x"));
  }

  @Test
  void generationBumpsOnSpecChangesOnly() {
    var nodesets = client.resources(TestNodeSet.class).inNamespace("default");
    TestNodeSet n = nodesets.resource(TestNodeSet.of("gen", 2)).create();
    assertEquals(1L, n.getMetadata().getGeneration());
    n =
        nodesets
            .withName("gen")
            .edit(
                x -> {
                  x.getMetadata().getLabels().put("l", "v");
                  return x;
                });
    assertEquals(1L, n.getMetadata().getGeneration(), "labels are metadata");
    TestNodeSet.Status st = new TestNodeSet.Status();
    st.replicas = 2;
    n.setStatus(st);
    n = nodesets.resource(n).updateStatus();
    assertEquals(1L, n.getMetadata().getGeneration(), "status has its own subresource");
    n =
        nodesets
            .withName("gen")
            .edit(
                x -> {
                  x.getSpec().replicas = 3;
                  return x;
                });
    assertEquals(2L, n.getMetadata().getGeneration());
    String rv = n.getMetadata().getResourceVersion();
    TestNodeSet same = nodesets.resource(n).update();
    assertEquals(
        rv, same.getMetadata().getResourceVersion(), "a write that changes nothing is a no-op");
  }

  @Test
  void fieldManagerIsHonouredOnStatus() {
    createPod("default", "fm", Map.of());
    ApiHttp.Res r =
        http.patch(
            "/api/v1/namespaces/default/pods/fm/status?fieldManager=tandem",
            "application/merge-patch+json",
            "{\"status\":{\"phase\":\"Running\"}}");
    assertEquals(200, r.code(), r.body());
    Pod p = client.pods().inNamespace("default").withName("fm").get();
    assertEquals("Running", p.getStatus().getPhase(), "the plain mock dropped this write");
    assertTrue(
        p.getMetadata().getManagedFields().stream()
            .anyMatch(m -> m.getManager().equals("tandem") && "status".equals(m.getSubresource())),
        p.getMetadata().getManagedFields().toString());
    ApiHttp.Res bad =
        http.patch(
            "/api/v1/namespaces/default/pods/fm/status?fieldManager=" + "x".repeat(129),
            "application/merge-patch+json",
            "{\"status\":{\"phase\":\"Running\"}}");
    assertEquals(400, bad.code());
  }

  @Test
  void typedListsAndPagination() {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("paging").endMetadata().build())
        .create();
    for (int i = 0; i < 5; i++) {
      client
          .configMaps()
          .inNamespace("paging")
          .resource(
              new ConfigMapBuilder().withNewMetadata().withName("cm-" + i).endMetadata().build())
          .create();
    }
    JsonNode list = http.get("/api/v1/namespaces/paging/configmaps").json();
    assertEquals("ConfigMapList", list.path("kind").asText());
    assertEquals("v1", list.path("apiVersion").asText());
    assertEquals(5, list.path("items").size());
    JsonNode nodesets = http.get("/apis/tandem.dev/v1alpha1/nodesets").json();
    assertEquals("NodeSetList", nodesets.path("kind").asText());

    Set<String> seen = new HashSet<>();
    String cont = null;
    int pages = 0;
    do {
      var page = client.configMaps().inNamespace("paging").list(2, cont);
      page.getItems().forEach(c -> seen.add(c.getMetadata().getName()));
      cont = page.getMetadata().getContinue();
      if (pages == 0) {
        assertEquals(3L, page.getMetadata().getRemainingItemCount());
      }
      pages++;
    } while (cont != null && !cont.isEmpty() && pages < 10);
    assertEquals(3, pages);
    assertEquals(5, seen.size());
  }

  @Test
  void dryRunPersistsNothing() {
    ApiHttp.Res r =
        http.post(
            "/api/v1/namespaces/default/configmaps?dryRun=All",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"dry\"}}");
    assertEquals(201, r.code());
    assertNull(client.configMaps().inNamespace("default").withName("dry").get());
  }

  @Test
  void unknownResourcesAre404() {
    ApiHttp.Res r = http.get("/apis/apps/v1/namespaces/default/deployments");
    assertEquals(404, r.code());
    assertTrue(r.body().contains("does not serve"), r.body());
  }

  @Test
  void finalizersHoldDeletion() {
    client
        .configMaps()
        .inNamespace("default")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("held")
                .addToFinalizers("tandem.dev/test")
                .endMetadata()
                .build())
        .create();
    client.configMaps().inNamespace("default").withName("held").delete();
    ConfigMap held = client.configMaps().inNamespace("default").withName("held").get();
    assertNotNull(held.getMetadata().getDeletionTimestamp());
    client
        .configMaps()
        .inNamespace("default")
        .withName("held")
        .edit(c -> new ConfigMapBuilder(c).editMetadata().withFinalizers().endMetadata().build());
    assertNull(client.configMaps().inNamespace("default").withName("held").get());
  }

  @Test
  void ownerReferencesAreGarbageCollected() {
    var nodesets = client.resources(TestNodeSet.class).inNamespace("default");
    TestNodeSet owner = nodesets.resource(TestNodeSet.of("owner", 1)).create();
    var ref =
        new OwnerReferenceBuilder()
            .withApiVersion("tandem.dev/v1alpha1")
            .withKind("NodeSet")
            .withName("owner")
            .withUid(owner.getMetadata().getUid())
            .withController(true)
            .build();
    client
        .pods()
        .inNamespace("default")
        .resource(
            new PodBuilder(pod("owned", Map.of()))
                .editMetadata()
                .withOwnerReferences(ref)
                .endMetadata()
                .build())
        .create();
    client
        .configMaps()
        .inNamespace("default")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("orphan-me")
                .withOwnerReferences(ref)
                .endMetadata()
                .build())
        .create();
    nodesets.withName("owner").delete();
    // The garbage collector runs apart from the API call, as on a cluster.
    await(
        Duration.ofSeconds(10),
        () -> client.pods().inNamespace("default").withName("owned").get() == null,
        "dependent pod collected");
    await(
        Duration.ofSeconds(10),
        () -> client.configMaps().inNamespace("default").withName("orphan-me").get() == null,
        "dependent config map collected");

    TestNodeSet owner2 = nodesets.resource(TestNodeSet.of("owner2", 1)).create();
    var ref2 =
        new OwnerReferenceBuilder(ref)
            .withName("owner2")
            .withUid(owner2.getMetadata().getUid())
            .build();
    client
        .configMaps()
        .inNamespace("default")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("kept")
                .withOwnerReferences(ref2)
                .endMetadata()
                .build())
        .create();
    nodesets
        .withName("owner2")
        .withPropagationPolicy(io.fabric8.kubernetes.api.model.DeletionPropagation.ORPHAN)
        .delete();
    await(
        Duration.ofSeconds(10),
        () -> nodesets.withName("owner2").get() == null,
        "orphaned owner gone once its dependents are orphaned");
    ConfigMap kept = client.configMaps().inNamespace("default").withName("kept").get();
    assertNotNull(kept);
    assertTrue(kept.getMetadata().getOwnerReferences().isEmpty());
  }

  @Test
  void deletingANamespaceDeletesItsContents() {
    long t0 = System.nanoTime();
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName("doomed").endMetadata().build())
        .create();
    client
        .configMaps()
        .inNamespace("doomed")
        .resource(new ConfigMapBuilder().withNewMetadata().withName("c").endMetadata().build())
        .create();
    createPod("doomed", "unbound", Map.of());
    long t1 = System.nanoTime();
    client.namespaces().withName("doomed").delete();
    long t2 = System.nanoTime();
    System.out.printf(
        "ns create %d ms, delete %d ms%n", (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000);
    await(
        Duration.ofSeconds(5),
        () -> client.namespaces().withName("doomed").get() == null,
        "namespace gone");
    assertNull(client.configMaps().inNamespace("doomed").withName("c").get());
    assertEquals(
        404,
        http.post("/api/v1/namespaces/doomed/configmaps", "{\"metadata\":{\"name\":\"late\"}}")
            .code());
  }

  @Test
  void jsonPatchFromFabric8EditWorks() {
    createPod("default", "edited", Map.of("a", "1"));
    Pod p =
        client
            .pods()
            .inNamespace("default")
            .withName("edited")
            .edit(
                x -> new PodBuilder(x).editMetadata().addToLabels("b", "2").endMetadata().build());
    assertEquals(Map.of("a", "1", "b", "2"), p.getMetadata().getLabels());
    ApiHttp.Res failing =
        http.patch(
            "/api/v1/namespaces/default/pods/edited",
            "application/json-patch+json",
            "[{\"op\":\"test\",\"path\":\"/metadata/name\",\"value\":\"other\"}]");
    assertEquals(422, failing.code());
  }

  @Test
  void serverSideApplyIsRefusedClearly() {
    createPod("default", "ssa", Map.of());
    KubernetesClientException e =
        assertThrows(
            KubernetesClientException.class,
            () ->
                client
                    .pods()
                    .inNamespace("default")
                    .withName("ssa")
                    .patch(
                        PatchContext.of(PatchType.SERVER_SIDE_APPLY),
                        "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}"));
    assertEquals(415, e.getCode());
    assertTrue(e.getMessage().contains("server-side apply"), e.getMessage());
  }
}
