package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pod subresources (binding, eviction), graceful deletion, strategic merge patch, immutability. */
class PodApiTest extends ApiTestBase {
  private static final String NS = "default";

  private static String binding(String pod, String node, String uid) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\""
        + pod
        + "\""
        + (uid == null ? "" : ",\"uid\":\"" + uid + "\"")
        + "},\"target\":{\"kind\":\"Node\",\"name\":\""
        + node
        + "\"}}";
  }

  @Test
  void bindingSubresourceBindsOnceAndOnlyOnce() {
    Pod p = createPod(NS, "bind-me", Map.of());
    ApiHttp.Res ok =
        http.post(
            "/api/v1/namespaces/default/pods/bind-me/binding",
            binding("bind-me", "n1", p.getMetadata().getUid()));
    assertEquals(201, ok.code(), ok.body());
    Pod bound = client.pods().inNamespace(NS).withName("bind-me").get();
    assertEquals("n1", bound.getSpec().getNodeName());
    PodCondition scheduled =
        bound.getStatus().getConditions().stream()
            .filter(c -> c.getType().equals("PodScheduled"))
            .findFirst()
            .orElseThrow();
    assertEquals("True", scheduled.getStatus());

    ApiHttp.Res again =
        http.post(
            "/api/v1/namespaces/default/pods/bind-me/binding", binding("bind-me", "n2", null));
    assertEquals(409, again.code());
    assertTrue(again.body().contains("is already assigned to node \\\"n1\\\""), again.body());

    ApiHttp.Res missing =
        http.post("/api/v1/namespaces/default/pods/ghost/binding", binding("ghost", "n1", null));
    assertEquals(404, missing.code());
    assertTrue(missing.body().contains("pods \\\"ghost\\\" not found"), missing.body());

    createPod(NS, "uid-check", Map.of());
    ApiHttp.Res wrongUid =
        http.post(
            "/api/v1/namespaces/default/pods/uid-check/binding",
            binding("uid-check", "n1", "not-the-uid"));
    assertEquals(409, wrongUid.code());
    assertNull(client.pods().inNamespace(NS).withName("uid-check").get().getSpec().getNodeName());
  }

  @Test
  void bindingsCollectionAsFabric8UsesIt() {
    createPod(NS, "bind-collection", Map.of());
    client
        .bindings()
        .inNamespace(NS)
        .resource(
            new BindingBuilder()
                .withNewMetadata()
                .withName("bind-collection")
                .endMetadata()
                .withNewTarget()
                .withKind("Node")
                .withName("n3")
                .endTarget()
                .build())
        .create();
    assertEquals(
        "n3",
        client.pods().inNamespace(NS).withName("bind-collection").get().getSpec().getNodeName());
  }

  /**
   * Every way fabric8 7.8 offers to bind (it has no {@code PodResource.bind}): the typed {@code
   * bindings()} collection, the generic {@code resource(binding)} and a raw POST to {@code
   * pods/{name}/binding}. Each is seen by watchers as exactly one MODIFIED event carrying the node,
   * which is what informer-driven code (a scheduler's, the kubelet's) waits for.
   */
  @Test
  void everyClientBindingPathIsOneModifiedWatchEvent() throws Exception {
    for (String n : new String[] {"w-typed", "w-generic", "w-raw"}) {
      createPod(NS, n, Map.of("watch", "binding"));
    }
    java.util.List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (io.fabric8.kubernetes.client.Watch w =
        client
            .pods()
            .inNamespace(NS)
            .withLabel("watch", "binding")
            .watch(
                new io.fabric8.kubernetes.client.Watcher<Pod>() {
                  @Override
                  public void eventReceived(Action action, Pod pod) {
                    events.add(
                        action
                            + " "
                            + pod.getMetadata().getName()
                            + " "
                            + pod.getSpec().getNodeName());
                  }

                  @Override
                  public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
                })) {
      await(java.time.Duration.ofSeconds(5), () -> events.size() >= 3, "initial ADDED events");
      events.clear();
      client.bindings().inNamespace(NS).resource(binding("w-typed", "node-a")).create();
      client.resource(binding("w-generic", "node-b")).inNamespace(NS).create();
      client.raw(
          "/api/v1/namespaces/default/pods/w-raw/binding",
          "POST",
          Map.of(
              "apiVersion",
              "v1",
              "kind",
              "Binding",
              "metadata",
              Map.of("name", "w-raw"),
              "target",
              Map.of("kind", "Node", "name", "node-c")));
      await(java.time.Duration.ofSeconds(5), () -> events.size() >= 3, "three MODIFIED events");
      Thread.sleep(200); // nothing else may follow
      assertEquals(
          java.util.List.of(
              "MODIFIED w-typed node-a", "MODIFIED w-generic node-b", "MODIFIED w-raw node-c"),
          events);
    }
    // Like a real API server, the binding does not check that the node exists (nothing runs the
    // pod then; on a cluster the pod garbage collector removes it): callers must pick real nodes.
    assertEquals(
        "node-a", client.pods().inNamespace(NS).withName("w-typed").get().getSpec().getNodeName());
  }

  private static io.fabric8.kubernetes.api.model.Binding binding(String pod, String node) {
    return new BindingBuilder()
        .withNewMetadata()
        .withName(pod)
        .endMetadata()
        .withNewTarget()
        .withKind("Node")
        .withName(node)
        .endTarget()
        .build();
  }

  @Test
  void nodeNameCannotBePatchedLikeOnACluster() {
    createPod(NS, "immutable", Map.of());
    KubernetesClientException e =
        assertThrows(
            KubernetesClientException.class,
            () ->
                client
                    .pods()
                    .inNamespace(NS)
                    .withName("immutable")
                    .patch(
                        PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"nodeName\":\"n1\"}}"));
    assertEquals(422, e.getCode());
    assertTrue(e.getMessage().contains("pod updates may not change fields"), e.getMessage());
    Pod labelled =
        client
            .pods()
            .inNamespace(NS)
            .withName("immutable")
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"labels\":{\"ok\":\"yes\"}}}");
    assertEquals("yes", labelled.getMetadata().getLabels().get("ok"));
  }

  @Test
  void evictionOfAnUnboundPodDeletesIt() {
    createPod(NS, "evict-me", Map.of());
    assertTrue(client.pods().inNamespace(NS).withName("evict-me").evict());
    assertNull(client.pods().inNamespace(NS).withName("evict-me").get());
  }

  @Test
  void evictionOfAnUnknownPodAnswers404Fast() {
    long t0 = System.nanoTime();
    ApiHttp.Res r =
        http.post(
            "/api/v1/namespaces/default/pods/nope/eviction",
            "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"nope\",\"namespace\":\"default\"}}");
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertEquals(404, r.code());
    assertTrue(ms < 2000, "the plain mock never answered; took " + ms + " ms");
  }

  @Test
  void boundPodsAreDeletedGracefully() {
    createPod(NS, "graceful", Map.of());
    http.post("/api/v1/namespaces/default/pods/graceful/binding", binding("graceful", "n1", null));
    ApiHttp.Res r =
        http.post(
            "/api/v1/namespaces/default/pods/graceful/eviction",
            "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\",\"metadata\":{\"name\":\"graceful\"},\"deleteOptions\":{\"gracePeriodSeconds\":20}}");
    assertEquals(201, r.code(), r.body());
    Pod terminating = client.pods().inNamespace(NS).withName("graceful").get();
    assertNotNull(terminating, "a kubelet has to stop it first");
    assertNotNull(terminating.getMetadata().getDeletionTimestamp());
    assertEquals(20L, terminating.getMetadata().getDeletionGracePeriodSeconds());
    // What the kubelet does once the containers stopped:
    client.pods().inNamespace(NS).withName("graceful").withGracePeriod(0).delete();
    assertNull(client.pods().inNamespace(NS).withName("graceful").get());
  }

  @Test
  void strategicMergePatchIsFabric8sDefaultAndWorksForBuiltins() {
    createPod(NS, "smp", Map.of("a", "1"));
    client
        .pods()
        .inNamespace(NS)
        .withName("smp")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"status\":{\"conditions\":[{\"type\":\"tandem.dev/SlurmDrained\",\"status\":\"True\"}]}}");
    client
        .pods()
        .inNamespace(NS)
        .withName("smp")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
    Pod p =
        client
            .pods()
            .inNamespace(NS)
            .withName("smp")
            .patch("{\"metadata\":{\"labels\":{\"b\":\"2\"}}}");
    assertEquals(Map.of("a", "1", "b", "2"), p.getMetadata().getLabels());
    assertEquals(2, p.getStatus().getConditions().size(), "conditions merge by type");
  }

  @Test
  void strategicMergePatchOnACustomResourceIs415LikeOnACluster() {
    client
        .resources(TestNodeSet.class)
        .inNamespace(NS)
        .resource(TestNodeSet.of("smp-cr", 1))
        .create();
    KubernetesClientException e =
        assertThrows(
            KubernetesClientException.class,
            () ->
                client
                    .resources(TestNodeSet.class)
                    .inNamespace(NS)
                    .withName("smp-cr")
                    .patch("{\"spec\":{\"replicas\":2}}"));
    assertEquals(415, e.getCode());
    assertTrue(
        e.getMessage().contains("strategic merge patch is not supported for custom resources"),
        e.getMessage());
  }

  @Test
  void cordonAndUncordonWithTheStrategicPatchKubectlSends() {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("n-cordon")
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .build())
        .create();
    ApiHttp.Res c =
        http.patch(
            "/api/v1/nodes/n-cordon",
            "application/strategic-merge-patch+json",
            "{\"spec\":{\"unschedulable\":true}}");
    assertEquals(200, c.code(), c.body());
    assertTrue(client.nodes().withName("n-cordon").get().getSpec().getUnschedulable());
    assertEquals(
        1, client.nodes().withField("spec.unschedulable", "true").list().getItems().size());
    http.patch(
        "/api/v1/nodes/n-cordon",
        "application/strategic-merge-patch+json",
        "{\"spec\":{\"unschedulable\":null}}");
    Node n = client.nodes().withName("n-cordon").get();
    assertFalse(Boolean.TRUE.equals(n.getSpec().getUnschedulable()));
  }

  @Test
  void podStatusConditionsOfOtherOwnersSurviveAKubeletStyleUpdate() {
    createPod(NS, "conds", Map.of());
    Pod cur = client.pods().inNamespace(NS).withName("conds").get();
    client
        .pods()
        .inNamespace(NS)
        .resource(
            new PodBuilder(cur)
                .editStatus()
                .addNewCondition()
                .withType("tandem.dev/Drain")
                .withStatus("True")
                .endCondition()
                .endStatus()
                .build())
        .updateStatus();
    client
        .pods()
        .inNamespace(NS)
        .withName("conds")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
    Pod after = client.pods().inNamespace(NS).withName("conds").get();
    assertEquals("Running", after.getStatus().getPhase());
    assertTrue(
        after.getStatus().getConditions().stream()
            .anyMatch(x -> x.getType().equals("tandem.dev/Drain")));
  }

  /**
   * kube-apiserver refuses to change a uid (ValidateObjectMetaUpdate: 422, field is immutable),
   * which the kubelet's status patches (and Tandem's condition at bind) use as a precondition; the
   * local API used to keep the stored uid and write the patch anyway.
   */
  @Test
  void aWriteCarryingAnotherUidIs422AndChangesNothing() {
    Pod created = createPod(NS, "uidpre", Map.of());
    String uid = created.getMetadata().getUid();
    String cond = "{\"type\":\"SlurmScheduled\",\"status\":\"True\"}";
    KubernetesClientException e =
        assertThrows(
            KubernetesClientException.class,
            () ->
                client
                    .pods()
                    .inNamespace(NS)
                    .withName("uidpre")
                    .subresource("status")
                    .patch(
                        PatchContext.of(PatchType.STRATEGIC_MERGE),
                        "{\"metadata\":{\"uid\":\"not-"
                            + uid
                            + "\"},\"status\":{\"conditions\":["
                            + cond
                            + "]}}"));
    assertEquals(422, e.getCode());
    assertEquals("metadata.uid", e.getStatus().getDetails().getCauses().get(0).getField());
    assertTrue(e.getMessage().contains("field is immutable"), e.getMessage());
    assertThrows(
        KubernetesClientException.class,
        () ->
            client
                .pods()
                .inNamespace(NS)
                .withName("uidpre")
                .patch(
                    PatchContext.of(PatchType.JSON_MERGE),
                    "{\"metadata\":{\"uid\":\"x\",\"labels\":{\"a\":\"b\"}}}"));
    Pod after = client.pods().inNamespace(NS).withName("uidpre").get();
    assertEquals(
        created.getMetadata().getResourceVersion(), after.getMetadata().getResourceVersion());

    client
        .pods()
        .inNamespace(NS)
        .withName("uidpre")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"metadata\":{\"uid\":\"" + uid + "\"},\"status\":{\"conditions\":[" + cond + "]}}");
    assertTrue(
        client.pods().inNamespace(NS).withName("uidpre").get().getStatus().getConditions().stream()
            .anyMatch(x -> x.getType().equals("SlurmScheduled")),
        "the pod's own uid: written");
  }
}
