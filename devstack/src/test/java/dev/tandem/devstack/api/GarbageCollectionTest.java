package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Deletion propagation and garbage collection as kube-apiserver and kube-controller-manager's
 * garbage collector do them (docs/local-api.md): Foreground owners wait for their blocking
 * dependents, a dependent with a solid owner only loses its dangling or waiting references, owners
 * held by other finalizers keep their dependents, Orphan goes through the {@code orphan} finalizer.
 */
class GarbageCollectionTest extends ApiTestBase {
  private static final String NS = "default";
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final String NODESETS = "/apis/tandem.dev/v1alpha1/namespaces/default/nodesets/";

  private static TestNodeSet nodeSet(String name, String... finalizers) {
    TestNodeSet n = TestNodeSet.of(name, 1);
    n.getMetadata().setFinalizers(List.of(finalizers));
    return client.resources(TestNodeSet.class).inNamespace(NS).resource(n).create();
  }

  private static TestNodeSet getNodeSet(String name) {
    return client.resources(TestNodeSet.class).inNamespace(NS).withName(name).get();
  }

  private static OwnerReference ref(HasMetadata owner, boolean block) {
    return new OwnerReferenceBuilder()
        .withApiVersion(owner.getApiVersion())
        .withKind(owner.getKind())
        .withName(owner.getMetadata().getName())
        .withUid(owner.getMetadata().getUid())
        .withController(owner instanceof TestNodeSet)
        .withBlockOwnerDeletion(block)
        .build();
  }

  /** The cluster-scoped owner Tandem gives its pods: the NodeSet CRD (never blocking). */
  private static OwnerReference crdRef() {
    return ref(
        client
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName("nodesets.tandem.dev")
            .get(),
        false);
  }

  private static Pod ownedPod(String name, List<String> finalizers, OwnerReference... refs) {
    return client
        .pods()
        .inNamespace(NS)
        .resource(
            new PodBuilder(pod(name, Map.of()))
                .editMetadata()
                .withOwnerReferences(refs)
                .withFinalizers(finalizers)
                .endMetadata()
                .build())
        .create();
  }

  private static ConfigMap ownedConfigMap(String name, OwnerReference... refs) {
    return client
        .configMaps()
        .inNamespace(NS)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .withOwnerReferences(refs)
                .endMetadata()
                .build())
        .create();
  }

  private static Pod getPod(String name) {
    return client.pods().inNamespace(NS).withName(name).get();
  }

  private static ConfigMap getConfigMap(String name) {
    return client.configMaps().inNamespace(NS).withName(name).get();
  }

  private static void bind(String pod) {
    ApiHttp.Res r =
        http.post(
            "/api/v1/namespaces/default/pods/" + pod + "/binding",
            "{\"metadata\":{\"name\":\""
                + pod
                + "\"},\"target\":{\"kind\":\"Node\",\"name\":\"n1\"}}");
    assertEquals(201, r.code(), r.body());
  }

  private static JsonNode deleteNodeSet(String name, String body) {
    ApiHttp.Res r = http.delete(NODESETS + name, body);
    assertEquals(200, r.code(), r.body());
    return Json.parse(r.body());
  }

  private static void dropFinalizers(String podOrNodeSet, boolean pod) {
    String patch = "{\"metadata\":{\"finalizers\":null}}";
    if (pod) {
      client
          .pods()
          .inNamespace(NS)
          .withName(podOrNodeSet)
          .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    } else {
      client
          .resources(TestNodeSet.class)
          .inNamespace(NS)
          .withName(podOrNodeSet)
          .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }
  }

  private static void gcSettles() {
    assertTrue(server.awaitGarbageCollector(WAIT), "garbage collector idle");
  }

  private static List<String> refUids(HasMetadata o) {
    return o.getMetadata().getOwnerReferences().stream().map(OwnerReference::getUid).toList();
  }

  @Test
  void foregroundOwnerWaitsForItsBlockingDependents() {
    TestNodeSet owner = nodeSet("fg");
    ownedPod("fg-bound", List.of(), ref(owner, true));
    bind("fg-bound");
    ownedPod("fg-held", List.of("tandem.dev/test-hold"), ref(owner, true));
    ownedConfigMap("fg-loose", ref(owner, false));

    JsonNode answer = deleteNodeSet("fg", "{\"propagationPolicy\":\"Foreground\"}");
    assertEquals("foregroundDeletion", answer.path("metadata").path("finalizers").path(0).asText());
    assertNotNull(Json.text(answer, "metadata", "deletionTimestamp"));

    await(WAIT, () -> getConfigMap("fg-loose") == null, "a non-blocking dependent is deleted");
    await(
        WAIT,
        () -> getPod("fg-held").getMetadata().getDeletionTimestamp() != null,
        "the held dependent is being deleted");
    gcSettles();
    Pod bound = getPod("fg-bound");
    assertNotNull(bound.getMetadata().getDeletionTimestamp(), "graceful deletion of a bound pod");
    assertEquals(30L, bound.getMetadata().getDeletionGracePeriodSeconds());
    TestNodeSet waiting = getNodeSet("fg");
    assertNotNull(waiting, "the owner stays while blocking dependents exist");
    assertEquals(List.of("foregroundDeletion"), waiting.getMetadata().getFinalizers());

    // The kubelet finishes the graceful deletion; the held pod still blocks.
    client.pods().inNamespace(NS).withName("fg-bound").withGracePeriod(0).delete();
    assertNull(getPod("fg-bound"));
    gcSettles();
    assertNotNull(getNodeSet("fg"), "a dependent held by its own finalizer still blocks");

    dropFinalizers("fg-held", true);
    await(WAIT, () -> getNodeSet("fg") == null, "the owner goes with its last blocking dependent");
    assertNull(getPod("fg-held"));
  }

  @Test
  void foregroundRecursesThroughDependentsThatHaveDependents() {
    TestNodeSet owner = nodeSet("rec");
    ConfigMap mid = ownedConfigMap("rec-mid", ref(owner, true));
    ownedPod("rec-leaf", List.of("tandem.dev/test-hold"), ref(mid, true));

    deleteNodeSet("rec", "{\"propagationPolicy\":\"Foreground\"}");
    await(
        WAIT,
        () -> getPod("rec-leaf").getMetadata().getDeletionTimestamp() != null,
        "the grandchild is being deleted");
    gcSettles();
    ConfigMap m = getConfigMap("rec-mid");
    assertNotNull(m, "the middle object waits for its own dependent");
    assertEquals(List.of("foregroundDeletion"), m.getMetadata().getFinalizers());
    assertNotNull(getNodeSet("rec"));

    dropFinalizers("rec-leaf", true);
    await(WAIT, () -> getNodeSet("rec") == null, "the chain unwinds");
    assertNull(getConfigMap("rec-mid"));
  }

  @Test
  void aSolidSecondOwnerKeepsTheDependentUnderForeground() {
    TestNodeSet owner = nodeSet("solid-fg");
    OwnerReference crd = crdRef();
    Pod p = ownedPod("solid-fg-0", List.of(), ref(owner, true), crd);
    bind("solid-fg-0");
    String rv = getPod("solid-fg-0").getMetadata().getResourceVersion();

    deleteNodeSet("solid-fg", "{\"propagationPolicy\":\"Foreground\"}");
    await(WAIT, () -> getNodeSet("solid-fg") == null, "the owner goes once the ref is stripped");
    Pod kept = getPod("solid-fg-0");
    assertNotNull(kept, "a dependent with a solid owner is never deleted");
    assertNull(kept.getMetadata().getDeletionTimestamp());
    assertEquals(List.of(crd.getUid()), refUids(kept), "only the waiting owner's ref went");
    assertTrue(
        Long.parseLong(kept.getMetadata().getResourceVersion()) > Long.parseLong(rv),
        "an ordinary update");
    assertEquals(p.getMetadata().getUid(), kept.getMetadata().getUid());
  }

  @Test
  void aSolidSecondOwnerKeepsTheDependentUnderBackground() {
    TestNodeSet owner = nodeSet("solid-bg");
    OwnerReference crd = crdRef();
    ownedPod("solid-bg-0", List.of(), ref(owner, true), crd);
    ownedConfigMap("solid-bg-cm", ref(owner, false), crd);

    deleteNodeSet("solid-bg", "");
    assertNull(getNodeSet("solid-bg"), "Background: the owner goes at once");
    await(
        WAIT,
        () -> refUids(getPod("solid-bg-0")).equals(List.of(crd.getUid())),
        "the dangling ref is stripped from the pod");
    await(
        WAIT,
        () -> refUids(getConfigMap("solid-bg-cm")).equals(List.of(crd.getUid())),
        "and from the config map");
    gcSettles();
    assertNull(getPod("solid-bg-0").getMetadata().getDeletionTimestamp());
  }

  @Test
  void backgroundLeavesDependentsAloneWhileTheOwnerIsHeld() {
    TestNodeSet owner = nodeSet("held", "tandem.dev/cleanup");
    ownedPod("held-0", List.of(), ref(owner, true));
    ownedConfigMap("held-cm", ref(owner, false), crdRef());

    deleteNodeSet("held", "{\"propagationPolicy\":\"Background\"}");
    gcSettles();
    TestNodeSet h = getNodeSet("held");
    assertNotNull(h.getMetadata().getDeletionTimestamp());
    assertEquals(List.of("tandem.dev/cleanup"), h.getMetadata().getFinalizers());
    assertNull(getPod("held-0").getMetadata().getDeletionTimestamp(), "an existing owner is solid");
    assertEquals(2, getConfigMap("held-cm").getMetadata().getOwnerReferences().size());

    dropFinalizers("held", false);
    assertNull(getNodeSet("held"));
    await(WAIT, () -> getPod("held-0") == null, "collected once the owner is really gone");
    await(
        WAIT,
        () -> getConfigMap("held-cm").getMetadata().getOwnerReferences().size() == 1,
        "the other dependent keeps its solid owner and loses the dangling ref");
  }

  @Test
  void orphanStripsTheOwnerEvenWhileAnotherFinalizerHoldsIt() {
    TestNodeSet owner = nodeSet("orph", "tandem.dev/cleanup");
    ownedConfigMap("orph-cm", ref(owner, true));
    ownedPod("orph-0", List.of(), ref(owner, true));

    JsonNode answer = deleteNodeSet("orph", "{\"propagationPolicy\":\"Orphan\"}");
    assertEquals("orphan", answer.path("metadata").path("finalizers").path(1).asText());
    await(
        WAIT,
        () -> getConfigMap("orph-cm").getMetadata().getOwnerReferences().isEmpty(),
        "dependents orphaned");
    await(
        WAIT,
        () ->
            getNodeSet("orph").getMetadata().getFinalizers().equals(List.of("tandem.dev/cleanup")),
        "the orphan finalizer goes, the other stays");
    assertTrue(getPod("orph-0").getMetadata().getOwnerReferences().isEmpty());

    dropFinalizers("orph", false);
    assertNull(getNodeSet("orph"));
    gcSettles();
    assertNotNull(getConfigMap("orph-cm"));
    assertNotNull(getPod("orph-0"));
  }

  @Test
  void propagationFromTheQueryTheLegacyFlagAndInvalidOptions() {
    TestNodeSet a = nodeSet("q-a");
    ownedConfigMap("q-a-cm", ref(a, true));
    assertEquals(200, http.delete(NODESETS + "q-a?propagationPolicy=Orphan", null).code());
    await(WAIT, () -> getNodeSet("q-a") == null, "orphaned owner gone");
    gcSettles();
    assertTrue(getConfigMap("q-a-cm").getMetadata().getOwnerReferences().isEmpty());

    TestNodeSet b = nodeSet("q-b");
    ownedConfigMap("q-b-cm", ref(b, true));
    deleteNodeSet("q-b", "{\"orphanDependents\":true}");
    await(WAIT, () -> getNodeSet("q-b") == null, "legacy orphanDependents");
    gcSettles();
    assertNotNull(getConfigMap("q-b-cm"));

    nodeSet("q-c", "tandem.dev/cleanup");
    ApiHttp.Res cascading = http.delete(NODESETS + "q-c", "{\"orphanDependents\":false}");
    assertEquals(202, cascading.code(), "accepted, not yet deleted, as the API server answers");

    nodeSet("q-d");
    ApiHttp.Res bad = http.delete(NODESETS + "q-d", "{\"propagationPolicy\":\"Sideways\"}");
    assertEquals(422, bad.code(), bad.body());
    assertTrue(bad.body().contains("Unsupported value: \\\"Sideways\\\""), bad.body());
    ApiHttp.Res both =
        http.delete(
            NODESETS + "q-d", "{\"propagationPolicy\":\"Orphan\",\"orphanDependents\":true}");
    assertEquals(422, both.code(), both.body());
    assertNotNull(getNodeSet("q-d"));
  }

  @Test
  void aDependentWhoseOwnerIsAlreadyGoneIsCollected() {
    TestNodeSet owner = nodeSet("late");
    OwnerReference stale =
        new OwnerReferenceBuilder(ref(owner, true)).withUid("not-the-uid").build();
    ownedConfigMap("late-cm", stale);
    await(WAIT, () -> getConfigMap("late-cm") == null, "an owner with another uid is absent");

    client
        .namespaces()
        .resource(
            new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                .withNewMetadata()
                .withName("gc-other")
                .endMetadata()
                .build())
        .create();
    client
        .configMaps()
        .inNamespace("gc-other")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("elsewhere")
                .withOwnerReferences(ref(owner, false))
                .endMetadata()
                .build())
        .create();
    await(
        WAIT,
        () -> client.configMaps().inNamespace("gc-other").withName("elsewhere").get() == null,
        "a namespaced owner is looked for in the dependent's namespace only");
    assertNotNull(getNodeSet("late"));

    OwnerReference unserved =
        new OwnerReferenceBuilder()
            .withApiVersion("apps/v1")
            .withKind("ReplicaSet")
            .withName("rs")
            .withUid("rs-uid")
            .build();
    ownedConfigMap("unserved-cm", unserved);
    gcSettles();
    assertNotNull(getConfigMap("unserved-cm"), "an owner kind that is not served is never absent");
  }

  @Test
  void watchersSeeTheOwnerWaitThenTheDependentGoThenTheOwner() throws Exception {
    List<String> events = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    TestNodeSet owner = nodeSet("watched");
    ConfigMap cm = ownedConfigMap("watched-cm", ref(owner, true));
    // Watch from the objects' own resourceVersions: only what the deletion does is delivered
    // (no initial ADDED events, whose arrival this test is not about).
    try (var w1 =
            client
                .resources(TestNodeSet.class)
                .inNamespace(NS)
                .withName("watched")
                .watch(since(owner), recorder(events));
        var w2 =
            client
                .configMaps()
                .inNamespace(NS)
                .withName("watched-cm")
                .watch(since(cm), recorder(events))) {
      deleteNodeSet("watched", "{\"propagationPolicy\":\"Foreground\"}");
      await(
          WAIT, () -> events.stream().filter(e -> e.contains("DELETED")).count() == 2, "both gone");
    }
    List<String> byRv =
        events.stream()
            .sorted(java.util.Comparator.comparingLong(e -> Long.parseLong(e.split(" ")[0])))
            .map(e -> e.substring(e.indexOf(' ') + 1))
            .toList();
    assertEquals(
        List.of(
            "MODIFIED NodeSet watched [foregroundDeletion]",
            "DELETED ConfigMap watched-cm []",
            "DELETED NodeSet watched [foregroundDeletion]"),
        byRv);
  }

  private static io.fabric8.kubernetes.api.model.ListOptions since(HasMetadata o) {
    return new io.fabric8.kubernetes.api.model.ListOptionsBuilder()
        .withResourceVersion(o.getMetadata().getResourceVersion())
        .build();
  }

  private static <T extends HasMetadata> io.fabric8.kubernetes.client.Watcher<T> recorder(
      List<String> events) {
    return new io.fabric8.kubernetes.client.Watcher<>() {
      @Override
      public void eventReceived(Action action, T o) {
        events.add(
            o.getMetadata().getResourceVersion()
                + " "
                + action
                + " "
                + o.getKind()
                + " "
                + o.getMetadata().getName()
                + " "
                + o.getMetadata().getFinalizers());
      }

      @Override
      public void onClose(io.fabric8.kubernetes.client.WatcherException cause) {}
    };
  }
}
