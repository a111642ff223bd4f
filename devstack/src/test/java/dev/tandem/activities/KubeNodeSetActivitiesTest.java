package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.faults.ApiFaults;
import dev.tandem.k8s.Fixtures;
import dev.tandem.k8s.Json;
import dev.tandem.k8s.NodeSetResources;
import dev.tandem.k8s.PodLabels;
import dev.tandem.k8s.api.NodeSet;
import dev.tandem.k8s.api.NodeSetStatus;
import dev.tandem.slurm.testing.MutableClock;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.NodeRef;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.SlurmCounts;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * NodeSet status, finalizer and events against the real API server (the activities through a fault
 * proxy, {@link RealApi}), each test in a namespace of its own.
 */
class KubeNodeSetActivitiesTest {
  static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
  static RealApi api;
  static KubernetesClient client;

  RealApi.Namespace namespace;
  String ns;
  NodeSetRef ref;
  MutableClock clock;
  KubeActivitiesImpl kube;

  @BeforeAll
  static void connect() throws IOException {
    api = RealApi.start();
    client = api.admin;
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
    ref = new NodeSetRef(ns, "gpu-a");
    clock = new MutableClock(T0);
    kube = new KubeActivitiesImpl(api.proxied, clock);
  }

  @AfterEach
  void tearDown() {
    api.proxy.faults().clear();
    namespace.close();
  }

  private GenericKubernetesResource createNodeSet(ObjectNode json) {
    ((ObjectNode) json.get("metadata")).put("namespace", ns);
    ((ObjectNode) json.get("metadata")).remove(List.of("uid", "generation"));
    GenericKubernetesResource r = Json.MAPPER.convertValue(json, GenericKubernetesResource.class);
    return NodeSetResources.generic(client).inNamespace(ns).resource(r).create();
  }

  private GenericKubernetesResource read() {
    return NodeSetResources.generic(client).inNamespace(ns).withName("gpu-a").get();
  }

  private static NodeSetStatusView status(String readyStatus, String message) {
    return new NodeSetStatusView(
        3,
        2,
        3,
        new SlurmCounts(1, 1, 0, 0, 1),
        "aaaaaaaaaa",
        "bbbbbbbbbb",
        4,
        PodLabels.selector("gpu-a"),
        List.of(new Condition(Condition.READY, readyStatus, "NodesReady", message, null)));
  }

  @Test
  void writesTheStatusSubresourceOnly() {
    GenericKubernetesResource created = createNodeSet(Fixtures.example());
    kube.writeNodeSetStatus(ref, status("False", "2 of 3 nodes ready"));

    NodeSet typed = client.resources(NodeSet.class).inNamespace(ns).withName("gpu-a").get();
    NodeSetStatus st = typed.getStatus();
    assertEquals(3, st.getReplicas());
    assertEquals(2, st.getReadyReplicas());
    assertEquals(3, st.getUpdatedReplicas());
    assertEquals(1, st.getSlurm().getDown());
    assertEquals("bbbbbbbbbb", st.getUpdateRevision());
    assertEquals(4L, st.getObservedGeneration());
    assertEquals("tandem.dev/nodeset=gpu-a", st.getSelector());
    assertEquals("Ready", st.getConditions().get(0).getType());
    assertEquals("2 of 3 nodes ready", st.getConditions().get(0).getMessage());
    assertEquals(T0.toString(), st.getConditions().get(0).getLastTransitionTime());
    assertEquals(3, typed.getSpec().getReplicas(), "spec untouched");
    assertEquals(created.getMetadata().getGeneration(), typed.getMetadata().getGeneration());
  }

  @Test
  void aStatusWriteIsOneReadAndOnePatch() {
    String before = createNodeSet(Fixtures.example()).getMetadata().getResourceVersion();
    long requests = api.requests();
    kube.writeNodeSetStatus(ref, status("False", "2 of 3 nodes ready"));
    // Not three: the patch goes through the NodeSet just read, not by name (KubeRefs).
    assertEquals(2, api.requests() - requests, "one read, one patch");
    assertNotEquals(before, read().getMetadata().getResourceVersion(), "written");
  }

  @Test
  void rewritingTheSameStatusChangesNothing() {
    createNodeSet(Fixtures.example());
    kube.writeNodeSetStatus(ref, status("False", "2 of 3 nodes ready"));
    String before = read().getMetadata().getResourceVersion();
    clock.advance(Duration.ofMinutes(5));
    long requests = api.requests();
    kube.writeNodeSetStatus(ref, status("False", "2 of 3 nodes ready"));
    assertEquals(1, api.requests() - requests, "one read, no write");
    assertEquals(before, read().getMetadata().getResourceVersion());
  }

  @Test
  void aConditionKeepsItsTransitionTimeUntilItsStatusChanges() {
    createNodeSet(Fixtures.example());
    kube.writeNodeSetStatus(ref, status("False", "1 of 3 nodes ready"));
    clock.advance(Duration.ofMinutes(5));
    kube.writeNodeSetStatus(ref, status("False", "2 of 3 nodes ready"));
    Map<String, Object> c = condition();
    assertEquals("2 of 3 nodes ready", c.get("message"));
    assertEquals(T0.toString(), c.get("lastTransitionTime"));

    clock.advance(Duration.ofMinutes(5));
    kube.writeNodeSetStatus(ref, status("True", "3 of 3 nodes ready"));
    assertEquals(T0.plus(Duration.ofMinutes(10)).toString(), condition().get("lastTransitionTime"));
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> condition() {
    Map<String, Object> st = (Map<String, Object>) read().getAdditionalProperties().get("status");
    return ((List<Map<String, Object>>) st.get("conditions")).get(0);
  }

  /**
   * The CRD keeps a shallow schema for the pod template, so the API server stores a template the
   * Java classes cannot read (ports as a string); Tandem must still report on it.
   */
  @Test
  void writesTheStatusOfANodeSetTheJavaClassesCannotRead() {
    ObjectNode bad = Fixtures.example();
    ((ObjectNode) bad.at("/spec/template/spec/containers/0")).put("ports", "80");
    createNodeSet(bad);
    assertThrows(
        RuntimeException.class,
        () -> client.resources(NodeSet.class).inNamespace(ns).withName("gpu-a").get());
    NodeSetStatusView invalid =
        new NodeSetStatusView(
            0,
            0,
            0,
            null,
            null,
            null,
            1,
            PodLabels.selector("gpu-a"),
            List.of(
                new Condition(
                    Condition.INVALID_SPEC,
                    "True",
                    "InvalidSpec",
                    "spec.template.spec.containers[0].ports: cannot be read as part of a pod"
                        + " template",
                    null)));
    kube.writeNodeSetStatus(ref, invalid);
    assertEquals("InvalidSpec", condition().get("type"));
  }

  @Test
  void statusOfAnAbsentNodeSetIsNotAnError() {
    assertDoesNotThrow(() -> kube.writeNodeSetStatus(ref, status("True", "ok")));
  }

  /** The proxy answers 409 to the first {@code conflicts} status patches, then lets them pass. */
  private static ApiFaults.Fault conflictsOnStatus(int conflicts) {
    AtomicInteger left = new AtomicInteger(conflicts);
    return api.proxy
        .faults()
        .failMatching(
            r ->
                r.isWrite()
                    && "nodesets".equals(r.resource())
                    && "status".equals(r.subresource())
                    && left.getAndDecrement() > 0,
            409,
            Duration.ofMinutes(1));
  }

  @Test
  void conflictsAreRetriedABoundedNumberOfTimes() {
    createNodeSet(Fixtures.example());
    ApiFaults.Fault two = conflictsOnStatus(2);
    kube.writeNodeSetStatus(ref, status("True", "ok"));
    assertEquals(2, two.hits());
    assertEquals("ok", condition().get("message"));
    two.cancel();

    ApiFaults.Fault always = conflictsOnStatus(Integer.MAX_VALUE);
    ApplicationFailure f =
        assertThrows(
            ApplicationFailure.class, () -> kube.writeNodeSetStatus(ref, status("False", "no")));
    assertFalse(f.isNonRetryable(), "still retryable by Temporal");
    assertEquals(KubeCalls.MAX_CONFLICT_ATTEMPTS, always.hits());
    assertEquals("ok", condition().get("message"), "not written");
  }

  @Test
  void releaseRemovesOnlyTandemsFinalizerFromADeletingNodeSet() {
    ObjectNode n = Fixtures.example();
    ((ObjectNode) n.get("metadata"))
        .putArray("finalizers")
        .add(NodeSet.FINALIZER)
        .add("example.com/other");
    createNodeSet(n);

    kube.releaseNodeSet(ref);
    assertEquals(
        List.of(NodeSet.FINALIZER, "example.com/other"),
        read().getMetadata().getFinalizers(),
        "a NodeSet that is not being deleted keeps its protection");

    NodeSetResources.generic(client).inNamespace(ns).withName("gpu-a").delete();
    assertNotNull(read().getMetadata().getDeletionTimestamp());
    kube.releaseNodeSet(ref);
    assertEquals(List.of("example.com/other"), read().getMetadata().getFinalizers());
    assertDoesNotThrow(() -> kube.releaseNodeSet(ref), "idempotent");
  }

  @Test
  void releaseOfTheLastFinalizerLetsTheNodeSetGo() {
    ObjectNode n = Fixtures.example();
    ((ObjectNode) n.get("metadata")).putArray("finalizers").add(NodeSet.FINALIZER);
    createNodeSet(n);
    NodeSetResources.generic(client).inNamespace(ns).withName("gpu-a").delete();
    kube.releaseNodeSet(ref);
    GenericKubernetesResource after = read();
    assertTrue(after == null || after.getMetadata().getFinalizers().isEmpty());
    assertDoesNotThrow(() -> kube.releaseNodeSet(new NodeSetRef(ns, "absent")));
  }

  @Test
  void eventsNameTheObjectByUidSoDescribeShowsThem() {
    var pod =
        client
            .pods()
            .inNamespace(ns)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("gpu-a-0")
                    .endMetadata()
                    .withNewSpec()
                    .withSchedulerName("none")
                    .addNewContainer()
                    .withName("s")
                    .withImage("s")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    GenericKubernetesResource nodeSet = createNodeSet(Fixtures.example());
    kube.recordEvent(
        EventRequest.warning(NodeRef.of(ns, "gpu-a", 0), "DrainTimedOut", "x".repeat(5000)));
    kube.recordEvent(new EventRequest(ns, "NodeSet", "gpu-a", "Normal", "ScaledUp", "3 to 4"));

    List<Event> events = client.v1().events().inNamespace(ns).list().getItems();
    assertEquals(2, events.size());
    Event podEvent =
        events.stream()
            .filter(e -> e.getReason().equals("DrainTimedOut"))
            .findFirst()
            .orElseThrow();
    assertEquals(pod.getMetadata().getUid(), podEvent.getInvolvedObject().getUid());
    assertEquals("Pod", podEvent.getInvolvedObject().getKind());
    assertEquals("Warning", podEvent.getType());
    assertEquals(EventRecorder.MAX_MESSAGE, podEvent.getMessage().length());
    Event nsEvent =
        events.stream().filter(e -> e.getReason().equals("ScaledUp")).findFirst().orElseThrow();
    assertEquals(nodeSet.getMetadata().getUid(), nsEvent.getInvolvedObject().getUid());
    assertEquals("tandem.dev/v1alpha1", nsEvent.getInvolvedObject().getApiVersion());
    Map<String, String> none = podEvent.getMetadata().getAnnotations();
    assertTrue(none == null || none.isEmpty(), "no group: no annotation, got " + none);
  }

  /** A gang member's event names its group, so a deleted member is found through its events. */
  @Test
  void aGangMembersEventNamesItsGroup() {
    kube.recordEvent(
        EventRequest.pod(ns, "trainer-1", "uid-1", false, "Scheduled", "bound").inGroup("train"));
    Event e = client.v1().events().inNamespace(ns).list().getItems().get(0);
    assertEquals(Map.of("tandem.dev/pod-group", "train"), e.getMetadata().getAnnotations());
    assertEquals("uid-1", e.getInvolvedObject().getUid());
  }

  @Test
  void eventsNeverFailTheCaller() {
    ApiFaults.Fault events =
        api.proxy.faults().failMatching(ApiFaults.writesTo("events"), 500, Duration.ofMinutes(1));
    assertDoesNotThrow(
        () -> kube.recordEvent(new EventRequest(ns, "Pod", "gone", "Normal", "X", "y")));
    assertDoesNotThrow(() -> kube.recordEvent(null));
    assertTrue(events.hits() > 0, "the event was tried");
    assertEquals(List.of(), client.v1().events().inNamespace(ns).list().getItems());
  }
}
