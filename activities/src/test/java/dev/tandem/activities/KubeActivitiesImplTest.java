package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.k8s.Fixtures;
import dev.tandem.k8s.NodeSetSpecs;
import dev.tandem.k8s.Owners;
import dev.tandem.slurm.testing.MutableClock;
import dev.tandem.workflows.activities.KubeActivities;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.PodRequest;
import dev.tandem.workflows.model.PodTemplate;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmSettings;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.temporal.failure.ApplicationFailure;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pods against fabric8's mock API server in CRUD mode. Only what a real API server would also do is
 * asserted. Where the mock is weaker it is said next to the test: it does not check delete
 * preconditions, does not validate, and does not run the garbage collector.
 */
@EnableKubernetesMockClient(crud = true)
class KubeActivitiesImplTest {
  static KubernetesMockServer server;
  static KubernetesClient mockClient;

  String ns;
  static KubernetesClient client;
  static String crdUid;
  KubeActivitiesImpl kube;
  PodTemplate template;

  @BeforeAll
  static void connect() {
    client = MockApi.withoutRetries(mockClient);
    crdUid = MockApi.installCrd(client);
  }

  @BeforeEach
  void setUp() {
    ns = MockApi.namespace();
    kube = new KubeActivitiesImpl(client, new MutableClock(Instant.parse("2025-01-01T00:00:00Z")));
    template = NodeSetSpecs.toView(Fixtures.example()).template();
  }

  @AfterAll
  static void closeClient() {
    client.close();
  }

  private PodRequest request(String nodeSet, int ordinal) {
    return new PodRequest(
        NodeRef.of(ns, nodeSet, ordinal), template, MockApi.nodeSet(client, ns, nodeSet));
  }

  @Test
  void ensurePodCreatesNoPodForANodeSetThatIsGone() {
    PodRequest orphan = new PodRequest(NodeRef.of(ns, "gone", 0), template, "uid-of-a-deleted-one");
    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> kube.ensurePod(orphan));
    assertEquals(KubeActivities.REJECTED, f.getType());
    assertTrue(f.getOriginalMessage().contains("NodeSet " + ns + "/gone no longer exists"));
    assertEquals(0, client.pods().inNamespace(ns).list().getItems().size(), "no pod");
  }

  @Test
  void ensurePodCreatesNoPodForANodeSetBeingDeleted() {
    String uid = MockApi.nodeSet(client, ns, "leaving", "tandem.dev/test-hold");
    dev.tandem.k8s.NodeSetResources.generic(client).inNamespace(ns).withName("leaving").delete();
    PodRequest r = new PodRequest(NodeRef.of(ns, "leaving", 0), template, uid);
    ApplicationFailure f = assertThrows(ApplicationFailure.class, () -> kube.ensurePod(r));
    assertEquals(KubeActivities.REJECTED, f.getType());
    assertTrue(f.getOriginalMessage().contains("is being deleted"), f.getOriginalMessage());
    assertEquals(0, client.pods().inNamespace(ns).list().getItems().size(), "no pod");
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
    assertEquals(1, client.pods().inNamespace(ns).list().getItems().size());

    Pod stored = client.pods().inNamespace(ns).withName("gpu-a-0").get();
    assertEquals("gpu-a-0", stored.getSpec().getHostname());
    assertEquals(
        MockApi.nodeSet(client, ns, "gpu-a"),
        stored.getMetadata().getOwnerReferences().get(0).getUid());
  }

  /**
   * The stored pod has the NodeSet as controller and the CRD, with the uid the API gave it, as
   * second owner: Kubernetes' garbage collector then never deletes it with its NodeSet.
   */
  @Test
  void ensurePodCreatesThePodWithItsNodeSetAndItsAnchorAsOwners() {
    kube.ensurePod(request("gpu-a", 0));
    Pod stored = client.pods().inNamespace(ns).withName("gpu-a-0").get();
    assertEquals(
        Owners.of("gpu-a", MockApi.nodeSet(client, ns, "gpu-a"), crdUid),
        stored.getMetadata().getOwnerReferences());
  }

  /** Fail closed: no anchor, no pod; the failure is retryable (the CRD may be installed later). */
  @ParameterizedTest
  @ValueSource(ints = {403, 404, 500})
  void withoutItsAnchorNoPodIsCreatedAndTheFailureIsRetryable(int code) {
    server
        .expect()
        .get()
        .withPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nodesets.tandem.dev")
        .andReturn(code, new StatusBuilder().withCode(code).withMessage("no").build())
        .once();
    ApplicationFailure f =
        assertThrows(ApplicationFailure.class, () -> kube.ensurePod(request("gpu-a", 0)));
    assertEquals(KubeCalls.UNAVAILABLE, f.getType());
    assertFalse(f.isNonRetryable());
    assertTrue(f.getOriginalMessage().contains("nodesets.tandem.dev"), f.getMessage());
    assertEquals(0, client.pods().inNamespace(ns).list().getItems().size(), "no pod");

    // Once the CRD reads again, the retry creates the pod with its anchor.
    kube.ensurePod(request("gpu-a", 0));
    assertTrue(
        Owners.hasAnchor(
            client
                .pods()
                .inNamespace(ns)
                .withName("gpu-a-0")
                .get()
                .getMetadata()
                .getOwnerReferences(),
            crdUid));
  }

  /** An existing pod needs no anchor read to be returned (the pod watcher adds a missing one). */
  @Test
  void anExistingPodIsReturnedEvenWhenTheAnchorCannotBeRead() {
    PodView created = kube.ensurePod(request("gpu-a", 0));
    client.apiextensions().v1().customResourceDefinitions().withName(Owners.CRD_NAME).delete();
    try {
      PodView again =
          new KubeActivitiesImpl(client, new MutableClock(Instant.parse("2025-01-01T00:00:00Z")))
              .ensurePod(request("gpu-a", 0));
      assertEquals(created.uid(), again.uid());
    } finally {
      crdUid = MockApi.installCrd(client);
    }
  }

  @Test
  void ensurePodReturnsAnOlderRevisionForTheCallerToCompare() {
    kube.ensurePod(request("gpu-a", 1));
    PodTemplate newer =
        new PodTemplate("0000000000", template.templateJson(), SlurmSettings.none());
    PodView v =
        kube.ensurePod(
            new PodRequest(
                NodeRef.of(ns, "gpu-a", 1), newer, MockApi.nodeSet(client, ns, "gpu-a")));
    assertEquals(template.revision(), v.revision());
  }

  @Test
  void ensurePodRefusesAPodOfTheSameNameThatIsNotTheNodeSets() {
    client
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

  /** The mock does not validate pods; a canned 422 stands in for the API server's refusal. */
  @Test
  void anInvalidPodIsRejectedWithTheApiServersMessage() {
    server
        .expect()
        .post()
        .withPath("/api/v1/namespaces/" + ns + "/pods?fieldValidation=Strict")
        .andReturn(
            422,
            new StatusBuilder()
                .withCode(422)
                .withReason("Invalid")
                .withMessage(
                    "Pod \"gpu-a-0\" is invalid: spec.containers[0].resources.limits: Invalid"
                        + " value: \"4Gi\": must be less than or equal to memory limit")
                .build())
        .once();
    ApplicationFailure f =
        assertThrows(ApplicationFailure.class, () -> kube.ensurePod(request("gpu-a", 0)));
    assertEquals(KubeActivities.POD_REJECTED, f.getType());
    assertTrue(f.isNonRetryable());
    assertEquals(
        "spec.containers[0].resources.limits: Invalid value: \"4Gi\": must be less than or equal"
            + " to memory limit",
        f.getOriginalMessage());
  }

  /**
   * A strict decoding error (a field newer than the cluster): one line for the workflow, the whole
   * error in a Warning event on the NodeSet.
   */
  @Test
  void anUnknownFieldIsAPodRejectionWithAWarningEventOnTheNodeSet() throws Exception {
    server
        .expect()
        .post()
        .withPath("/api/v1/namespaces/" + ns + "/pods?fieldValidation=Strict")
        .andReturn(400, PodRejectionsTest.recorded("pod-strict-unknown-field-400.json").getStatus())
        .once();
    ApplicationFailure f =
        assertThrows(ApplicationFailure.class, () -> kube.ensurePod(request("gpu-a", 0)));
    assertEquals(KubeActivities.POD_REJECTED, f.getType());
    assertTrue(f.isNonRetryable());
    assertEquals("unknown field \"spec.containers[0].resizePolicy\"", f.getOriginalMessage());
    var events = client.v1().events().inNamespace(ns).list().getItems();
    assertEquals(1, events.size());
    var ev = events.get(0);
    assertEquals("PodRejected", ev.getReason());
    assertEquals("Warning", ev.getType());
    assertEquals("NodeSet", ev.getInvolvedObject().getKind());
    assertEquals("gpu-a", ev.getInvolvedObject().getName());
    assertTrue(ev.getMessage().contains("strict decoding error"), ev.getMessage());
  }

  @Test
  void serverErrorsStayRetryable() {
    server
        .expect()
        .post()
        .withPath("/api/v1/namespaces/" + ns + "/pods?fieldValidation=Strict")
        .andReturn(500, new StatusBuilder().withCode(500).withMessage("etcd timeout").build())
        .always();
    ApplicationFailure f =
        assertThrows(ApplicationFailure.class, () -> kube.ensurePod(request("gpu-a", 0)));
    assertEquals(KubeCalls.UNAVAILABLE, f.getType());
    assertFalse(f.isNonRetryable());
  }

  /** A create that meets 409 (another attempt won the race) re-reads instead of failing. */
  @Test
  void ensurePodRereadsAfterAConflictingCreate() {
    server
        .expect()
        .post()
        .withPath("/api/v1/namespaces/" + ns + "/pods?fieldValidation=Strict")
        .andReturn(
            409,
            new StatusBuilder()
                .withCode(409)
                .withReason("AlreadyExists")
                .withMessage("pods \"gpu-a-0\" already exists")
                .build())
        .once();
    PodView v = kube.ensurePod(request("gpu-a", 0));
    assertTrue(v.exists());
    assertEquals(1, client.pods().inNamespace(ns).list().getItems().size());
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
    String p = "lbl-" + ns + "-";
    for (String[] n :
        List.of(
            new String[] {p + "1", "a"},
            new String[] {p + "2", "b"},
            new String[] {p + "4", "a"})) {
      client
          .nodes()
          .resource(
              new io.fabric8.kubernetes.api.model.NodeBuilder()
                  .withNewMetadata()
                  .withName(n[0])
                  .addToLabels(key, n[1])
                  .endMetadata()
                  .build())
          .create();
    }
    client
        .nodes()
        .resource(
            new io.fabric8.kubernetes.api.model.NodeBuilder()
                .withNewMetadata()
                .withName(p + "3")
                .addToLabels("other", "x")
                .endMetadata()
                .build())
        .create();
    // 3 is unlabelled, 5 does not exist, 4 is labelled but not asked for.
    assertEquals(
        java.util.Map.of(p + "1", "a", p + "2", "b"),
        kube.nodeLabelValues(key, List.of(p + "1", p + "2", p + "3", p + "5")));
    assertEquals(java.util.Map.of(), kube.nodeLabelValues(key, List.of()));
  }
}
