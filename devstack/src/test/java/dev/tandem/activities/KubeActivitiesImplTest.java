package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.faults.ApiFaults;
import dev.tandem.k8s.Fixtures;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.NodeSetSpecs;
import dev.tandem.k8s.Owners;
import dev.tandem.slurm.testing.MutableClock;
import dev.tandem.workflows.activities.KubeActivities;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.PodRequest;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmSettings;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pods against the real API server: the activities talk through a fault proxy ({@link RealApi}),
 * the test reads and writes directly. Each test has a namespace of its own.
 */
class KubeActivitiesImplTest {
  static RealApi api;

  RealApi.Namespace namespace;
  String ns;
  KubeActivitiesImpl kube;
  PodTemplate template;

  @BeforeAll
  static void connect() throws IOException {
    api = RealApi.start();
  }

  @AfterAll
  static void disconnect() {
    if (api != null) {
      api.close();
    }
  }

  @BeforeEach
  void setUp() {
    namespace = api.namespace();
    ns = namespace.name;
    kube = activities();
    template = NodeSetSpecs.toView(Fixtures.example()).template();
  }

  @AfterEach
  void tearDown() {
    api.proxy.faults().clear();
    namespace.close();
  }

  private static KubeActivitiesImpl activities() {
    return new KubeActivitiesImpl(
        api.proxied, new MutableClock(Instant.parse("2025-01-01T00:00:00Z")));
  }

  private PodRequest request(String nodeSet, int ordinal) {
    return new PodRequest(NodeRef.of(ns, nodeSet, ordinal), template, api.nodeSet(ns, nodeSet));
  }

  private List<Pod> pods() {
    return api.admin.pods().inNamespace(ns).list().getItems();
  }

  /** Reads of the NodeSet CRD fail with {@code code} for a minute. */
  private static ApiFaults.Fault failCrdReads(int code) {
    return api.proxy
        .faults()
        .failMatching(
            r ->
                "customresourcedefinitions".equals(r.resource())
                    && Owners.CRD_NAME.equals(r.name()),
            code,
            Duration.ofMinutes(1));
  }

  @Test
  void ensurePodCreatesNoPodForANodeSetThatIsGone() {
    PodRequest orphan = new PodRequest(NodeRef.of(ns, "gone", 0), template, "uid-of-a-deleted-one");
    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> kube.ensurePod(orphan));
    assertEquals(KubeActivities.REJECTED, f.getType());
    assertTrue(f.getOriginalMessage().contains("NodeSet " + ns + "/gone no longer exists"));
    assertEquals(List.of(), pods(), "no pod");
  }

  @Test
  void ensurePodCreatesNoPodForANodeSetBeingDeleted() {
    String uid = api.nodeSet(ns, "leaving", "tandem.dev/test-hold");
    NodeSetResources.generic(api.admin).inNamespace(ns).withName("leaving").delete();
    PodRequest r = new PodRequest(NodeRef.of(ns, "leaving", 0), template, uid);
    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> kube.ensurePod(r));
    assertEquals(KubeActivities.REJECTED, f.getType());
    assertTrue(f.getOriginalMessage().contains("is being deleted"), f.getOriginalMessage());
    assertEquals(List.of(), pods(), "no pod");
  }

  @Test
  void ensurePodCreatesOnceAndThenReturnsTheSamePod() {
    PodView first = kube.ensurePod(request("gpu-a", 0));
    assertTrue(first.exists());
    assertEquals("gpu-a-0", first.name());
    assertEquals(template.revision(), first.revision());
    assertNotNull(first.uid());

    PodView again = kube.ensurePod(request("gpu-a", 0));
    assertEquals(first.uid(), again.uid());
    assertEquals(1, pods().size());

    Pod stored = api.admin.pods().inNamespace(ns).withName("gpu-a-0").get();
    assertEquals("gpu-a-0", stored.getSpec().getHostname());
    assertEquals(
        api.nodeSet(ns, "gpu-a"), stored.getMetadata().getOwnerReferences().get(0).getUid());
  }

  /**
   * The stored pod has the NodeSet as controller and the CRD, with the uid the API gave it, as
   * second owner: Kubernetes' garbage collector then never deletes it with its NodeSet.
   */
  @Test
  void ensurePodCreatesThePodWithItsNodeSetAndItsAnchorAsOwners() {
    kube.ensurePod(request("gpu-a", 0));
    Pod stored = api.admin.pods().inNamespace(ns).withName("gpu-a-0").get();
    assertEquals(
        Owners.of("gpu-a", api.nodeSet(ns, "gpu-a"), api.crdUid()),
        stored.getMetadata().getOwnerReferences());
  }

  /** Fail closed: no anchor, no pod; the failure is retryable (the CRD may be installed later). */
  @ParameterizedTest
  @ValueSource(ints = {403, 404, 500})
  void withoutItsAnchorNoPodIsCreatedAndTheFailureIsRetryable(int code) {
    ApiFaults.Fault crd = failCrdReads(code);
    ApplicationFailure f =
        assertThrows(ApplicationFailure.class, () -> kube.ensurePod(request("gpu-a", 0)));
    assertEquals(KubeCalls.UNAVAILABLE, f.getType());
    assertFalse(f.isNonRetryable());
    assertTrue(f.getOriginalMessage().contains("nodesets.tandem.dev"), f.getMessage());
    assertEquals(List.of(), pods(), "no pod");

    // Once the CRD reads again, the retry creates the pod with its anchor.
    crd.cancel();
    kube.ensurePod(request("gpu-a", 0));
    assertTrue(
        Owners.hasAnchor(
            api.admin
                .pods()
                .inNamespace(ns)
                .withName("gpu-a-0")
                .get()
                .getMetadata()
                .getOwnerReferences(),
            api.crdUid()));
  }

  /** An existing pod needs no anchor read to be returned (the pod watcher adds a missing one). */
  @Test
  void anExistingPodIsReturnedEvenWhenTheAnchorCannotBeRead() {
    PodView created = kube.ensurePod(request("gpu-a", 0));
    ApiFaults.Fault crd = failCrdReads(403);
    PodView again = activities().ensurePod(request("gpu-a", 0));
    assertEquals(created.uid(), again.uid());
    assertEquals(0, crd.hits(), "the anchor was not read");
  }

  @Test
  void ensurePodReturnsAnOlderRevisionForTheCallerToCompare() {
    kube.ensurePod(request("gpu-a", 1));
    PodTemplate newer =
        new PodTemplate("0000000000", template.templateJson(), SlurmSettings.none());
    PodView v =
        kube.ensurePod(new PodRequest(NodeRef.of(ns, "gpu-a", 1), newer, api.nodeSet(ns, "gpu-a")));
    assertEquals(template.revision(), v.revision());
  }

  @Test
  void ensurePodRefusesAPodOfTheSameNameThatIsNotTheNodeSets() {
    api.admin
        .pods()
        .inNamespace(ns)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("gpu-a-0")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("x")
                .withImage("x")
                .endContainer()
                .endSpec()
                .build())
        .create();
    ApplicationFailure f =
        assertThrows(ApplicationFailure.class, () -> kube.ensurePod(request("gpu-a", 0)));
    assertEquals(KubeActivities.REJECTED, f.getType());
    assertTrue(f.isNonRetryable());
    assertTrue(f.getOriginalMessage().contains("does not belong to NodeSet gpu-a"), f.getMessage());
  }

  @Test
  void ensurePodRefusesATemplateThatCannotMakeAPod() {
    PodTemplate bad = new PodTemplate("1111111111", "{\"spec\":{}}", SlurmSettings.none());
    ApplicationFailure f =
        assertThrows(
            ApplicationFailure.class,
            () -> kube.ensurePod(new PodRequest(NodeRef.of(ns, "gpu-a", 0), bad, null)));
    assertEquals(KubeActivities.REJECTED, f.getType());
    assertTrue(f.isNonRetryable());
  }

  /** The API server's validation refuses a memory request above its limit; Tandem cannot know. */
  @Test
  void anInvalidPodIsRejectedWithTheApiServersMessage() {
    ObjectNode example = Fixtures.example();
    ((ObjectNode) example.at("/spec/template/spec/containers/0/resources/limits"))
        .put("memory", "2Gi");
    template = NodeSetSpecs.toView(example).template();
    ApplicationFailure f =
        assertThrows(ApplicationFailure.class, () -> kube.ensurePod(request("gpu-a", 0)));
    assertEquals(KubeActivities.POD_REJECTED, f.getType());
    assertTrue(f.isNonRetryable());
    assertEquals(
        "spec.containers[0].resources.requests: Invalid value: \"4Gi\": must be less than or equal"
            + " to memory limit of 2Gi",
        f.getOriginalMessage());
    assertEquals(List.of(), pods(), "no pod");
  }

  @Test
  void serverErrorsStayRetryable() {
    api.proxy.faults().failMatching(ApiFaults.writesTo("pods"), 500, Duration.ofMinutes(1));
    ApplicationFailure f =
        assertThrows(ApplicationFailure.class, () -> kube.ensurePod(request("gpu-a", 0)));
    assertEquals(KubeCalls.UNAVAILABLE, f.getType());
    assertFalse(f.isNonRetryable());
  }

  /**
   * A create that meets 409 (another attempt won the race) re-reads instead of failing: the pod
   * exists, but the activity's first read of it is answered 404, so the API server refuses the
   * create as AlreadyExists.
   */
  @Test
  void ensurePodRereadsAfterAConflictingCreate() {
    PodView first = kube.ensurePod(request("gpu-a", 0));
    AtomicBoolean once = new AtomicBoolean(true);
    ApiFaults.Fault missed =
        api.proxy
            .faults()
            .failMatching(
                r ->
                    "GET".equals(r.method())
                        && "pods".equals(r.resource())
                        && "gpu-a-0".equals(r.name())
                        && once.getAndSet(false),
                404,
                Duration.ofMinutes(1));
    PodView v = activities().ensurePod(request("gpu-a", 0));
    assertEquals(1, missed.hits());
    assertEquals(first.uid(), v.uid());
    assertEquals(1, pods().size());
  }

  @Test
  void getPodOfNothingIsAbsent() {
    PodView v = kube.getPod(ns, "gpu-a-9");
    assertFalse(v.exists());
    assertEquals("gpu-a-9", v.name());
  }

  @Test
  void deletePodOnlyDeletesThePodWithTheGivenUid() {
    PodView created = kube.ensurePod(request("gpu-a", 0));

    PodView other = kube.deletePod(ns, "gpu-a-0", "some-other-uid");
    assertTrue(other.exists(), "a pod with another uid is not deleted");
    assertEquals(created.uid(), other.uid());

    PodView gone = kube.deletePod(ns, "gpu-a-0", created.uid());
    assertFalse(gone.exists());
    assertFalse(kube.deletePod(ns, "gpu-a-0", created.uid()).exists(), "idempotent");
    assertFalse(kube.deletePod(ns, "gpu-a-0", null).exists());
  }

  /**
   * The delete carries the resourceVersion read: a pod changed in between (here by a label the test
   * writes as the delete passes the proxy) is refused with 409, read again and then deleted.
   */
  @Test
  void aPodChangedSinceItWasReadIsReadAgainBeforeTheDelete() {
    PodView created = kube.ensurePod(request("gpu-a", 0));
    AtomicInteger deletes = new AtomicInteger();
    Predicate<ApiFaults.Request> changeOnFirstDelete =
        r -> {
          if ("DELETE".equals(r.method()) && "gpu-a-0".equals(r.name())) {
            if (deletes.incrementAndGet() == 1) {
              api.admin.pods().inNamespace(ns).withName("gpu-a-0").edit(p -> label(p));
            }
          }
          return false;
        };
    api.proxy.faults().failMatching(changeOnFirstDelete, 500, Duration.ofMinutes(1));
    assertFalse(kube.deletePod(ns, "gpu-a-0", created.uid()).exists());
    assertEquals(2, deletes.get(), "refused once, then deleted");
  }

  private static Pod label(Pod p) {
    p.getMetadata().getLabels().put("changed", "true");
    return p;
  }

  @Test
  void listPodsReturnsOnlyTheNodeSetsPodsByOrdinal() {
    kube.ensurePod(request("gpu-a", 10));
    kube.ensurePod(request("gpu-a", 2));
    kube.ensurePod(request("gpu-b", 0));
    kube.ensurePod(request("gpu-a", 1));
    List<String> names =
        kube.listPods(ns, "gpu-a").stream().map(PodView::name).collect(Collectors.toList());
    assertEquals(List.of("gpu-a-1", "gpu-a-2", "gpu-a-10"), names);
    assertEquals(List.of(), kube.listPods("elsewhere", "gpu-a"));
  }

  @Test
  void nodeLabelValuesReadsTheLabelOfTheAskedNodesOnly() {
    String key = "topology.tandem.dev/block";
    String p = "lbl-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    Map<String, String> labels =
        Map.of(p + "1", key + "=a", p + "2", key + "=b", p + "3", "other=x", p + "4", key + "=a");
    try {
      labels.forEach(
          (name, label) -> {
            String[] kv = label.split("=");
            api.admin
                .nodes()
                .resource(
                    new NodeBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .addToLabels(kv[0], kv[1])
                        .endMetadata()
                        .build())
                .create();
          });
      // 3 is unlabelled, 5 does not exist, 4 is labelled but not asked for.
      assertEquals(
          Map.of(p + "1", "a", p + "2", "b"),
          kube.nodeLabelValues(key, List.of(p + "1", p + "2", p + "3", p + "5")));
      assertEquals(Map.of(), kube.nodeLabelValues(key, List.of()));
    } finally {
      labels.keySet().forEach(n -> api.admin.nodes().withName(n).delete());
    }
  }
}
