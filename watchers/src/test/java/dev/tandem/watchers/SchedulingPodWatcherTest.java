package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.watchers.RecordingSignals.ScheduleStart;
import dev.tandem.watchers.RecordingSignals.Sent;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.schedule.GroupMember;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The scheduling pod watcher against the real API server, which filters pods by {@code
 * spec.schedulerName} and binds through {@code pods/binding}.
 */
@ExtendWith(KubeNamespace.class)
class SchedulingPodWatcherTest extends WatcherTestBase {
  static KubernetesClient client;

  private SchedulingPodWatcher watcher;

  @BeforeEach
  void start() {
    watcher = watcher(RESYNC);
  }

  private SchedulingPodWatcher watcher(Duration resync) {
    SchedulingPodWatcher w = new SchedulingPodWatcher(client, coalescer, signals, metrics, resync);
    w.start();
    Wait.until("synced", w::synced);
    return w;
  }

  @AfterEach
  void stop() {
    watcher.close();
  }

  private static Pod pod(String name, String scheduler) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName(scheduler)
        .withTerminationGracePeriodSeconds(10L)
        .addNewContainer()
        .withName("main")
        .withImage("busybox")
        .withNewResources()
        .withRequests(Map.of("cpu", new Quantity("500m"), "memory", new Quantity("1Gi")))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  private Pod create(String name) {
    return client.pods().resource(pod(name, "tandem-slurm")).create();
  }

  private List<Sent> starts() {
    return signals.named("podSchedule");
  }

  private List<PodView> observed(String workflowId) {
    return signals
        .matching(s -> s.target().equals(workflowId) && s.signal().equals("podObserved"))
        .stream()
        .map(s -> (PodView) s.payload())
        .toList();
  }

  private static String workflowId(Pod p) {
    return "schedule/"
        + client.getNamespace()
        + "/"
        + p.getMetadata().getName()
        + "/"
        + p.getMetadata().getUid();
  }

  @Test
  void aWaitingPodStartsItsWorkflowOnceThenBindAndDeleteArePlainSignals() throws Exception {
    client.nodes().resource(K8sObjects.node("k1")).create();
    Pod p = create("train-0");
    Wait.until("signal-with-start", () -> !starts().isEmpty());
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    assertEquals(1, starts().size(), signals.all().toString());
    Sent s = starts().get(0);
    assertEquals(workflowId(p), s.target());
    ScheduleStart start = (ScheduleStart) s.payload();
    assertEquals(p.getMetadata().getUid(), start.request().uid());
    assertEquals("500m", start.request().requests().get("cpu"));
    assertEquals("1Gi", start.request().requests().get("memory"));
    assertEquals(10L, start.request().terminationGracePeriodSeconds());
    assertTrue(start.view().exists());
    assertNull(start.view().k8sNode());
    assertTrue(watcher.podsWaiting(), "an unbound pod waits: the poller lists jobs sooner");

    Binding b =
        new BindingBuilder()
            .withNewMetadata()
            .withName("train-0")
            .endMetadata()
            .withNewTarget()
            .withKind("Node")
            .withName("k1")
            .endTarget()
            .build();
    client.bindings().resource(b).create();
    Wait.until(
        "bound pod: plain podObserved",
        () -> observed(workflowId(p)).stream().anyMatch(v -> "k1".equals(v.k8sNode())));
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    assertEquals(1, starts().size(), "a bound pod never starts a workflow");
    assertFalse(watcher.podsWaiting(), "a bound pod waits no more");

    client.pods().withName("train-0").withGracePeriod(0).delete();
    Wait.until(
        "deleted: absent", () -> observed(workflowId(p)).stream().anyMatch(v -> !v.exists()));
    assertEquals(1, starts().size());
  }

  @Test
  void aBindMadeByTandemIsNotSignalledButAnotherSchedulersIs() throws Exception {
    client.nodes().resource(K8sObjects.node("k1")).create();
    client.nodes().resource(K8sObjects.node("k2")).create();
    Pod ours = create("ours-0");
    Pod theirs = create("theirs-0");
    Wait.until("both started", () -> starts().size() >= 2);
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    bind("ours-0", "k1", Map.of("tandem.dev/job-id", "42", "tandem.dev/slurm-node", "s1"));
    bind("theirs-0", "k2", Map.of());
    Wait.until(
        "the other scheduler's bind",
        () -> observed(workflowId(theirs)).stream().anyMatch(v -> "k2".equals(v.k8sNode())));
    Wait.until(
        "ours bound in the watcher's cache",
        () -> client.pods().withName("ours-0").get().getSpec().getNodeName() != null);
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    assertTrue(observed(workflowId(ours)).isEmpty(), signals.all().toString());
    // Its deletion still reaches the workflow.
    client.pods().withName("ours-0").withGracePeriod(0).delete();
    Wait.until(
        "deleted: absent", () -> observed(workflowId(ours)).stream().anyMatch(v -> !v.exists()));
  }

  private static void bind(String name, String node, Map<String, String> annotations) {
    client
        .bindings()
        .resource(
            new BindingBuilder()
                .withNewMetadata()
                .withName(name)
                .withAnnotations(annotations)
                .endMetadata()
                .withNewTarget()
                .withKind("Node")
                .withName(node)
                .endTarget()
                .build())
        .create();
  }

  @Test
  void gangMembersReachTheirGroupsOneWorkflowWithTheirRequest() throws Exception {
    Map<String, String> gang = Map.of("tandem.dev/pod-group", "g1", "tandem.dev/group-size", "2");
    Pod a = pod("g1-a", "tandem-slurm");
    a.getMetadata().setAnnotations(gang);
    Pod b = pod("g1-b", "tandem-slurm");
    b.getMetadata().setAnnotations(gang);
    Pod createdA = client.pods().resource(a).create();
    client.pods().resource(b).create();
    Wait.until("both members sent", () -> signals.named("podGroupMember").size() >= 2);
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    List<Sent> members = signals.named("podGroupMember");
    assertTrue(
        members.stream()
            .allMatch(s -> s.target().equals("schedule-group/" + client.getNamespace() + "/g1")),
        members.toString());
    assertTrue(starts().isEmpty(), "no per-pod workflow for a gang member");
    GroupMember first = (GroupMember) members.get(0).payload();
    assertEquals("1Gi", first.request().requests().get("memory"));
    assertEquals("g1", first.request().annotation("tandem.dev/pod-group"));

    // Deleted: a plain memberObserved with the member's request and an absent view.
    client.pods().withName("g1-a").withGracePeriod(0).delete();
    Wait.until(
        "g1-a gone",
        () ->
            signals
                .matching(
                    s ->
                        s.signal().equals("memberObserved")
                            && s.target().equals("schedule-group/" + client.getNamespace() + "/g1"))
                .stream()
                .map(s -> (GroupMember) s.payload())
                .anyMatch(
                    m ->
                        !m.view().exists()
                            && createdA.getMetadata().getUid().equals(m.request().uid())));
  }

  @Test
  void podsOfOtherSchedulersAreNotWatched() throws Exception {
    client.pods().resource(pod("web-0", "default-scheduler")).create();
    client.pods().resource(pod("web-1", null)).create();
    create("train-1");
    Wait.until("train-1 seen", () -> !starts().isEmpty());
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    assertTrue(
        signals.all().stream().noneMatch(x -> x.target().contains("/web-")),
        signals.all().toString());
    assertEquals(1, watcher.informer().getIndexer().list().size(), "only tandem-slurm pods cached");
  }

  @Test
  void onlyChangesTheWorkflowActsOnAreSent() throws Exception {
    create("train-0");
    Wait.until("start", () -> starts().size() == 1);
    client
        .pods()
        .withName("train-0")
        .edit(
            x -> new PodBuilder(x).editMetadata().addToLabels("team", "ml").endMetadata().build());
    Wait.until(
        "label cached",
        () ->
            watcher.informer().getIndexer().list().stream()
                .anyMatch(x -> x.getMetadata().getLabels().containsKey("team")));
    Thread.sleep(300); // the handler runs after the cache is updated
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    assertEquals(1, starts().size(), "a label the workflow does not read sends nothing");

    client
        .pods()
        .withName("train-0")
        .edit(
            x ->
                new PodBuilder(x)
                    .editMetadata()
                    .addToAnnotations("tandem.dev/partition", "gpu")
                    .endMetadata()
                    .build());
    Wait.until("annotation sent", () -> starts().size() == 2);
    ScheduleStart st = (ScheduleStart) starts().get(1).payload();
    assertEquals("gpu", st.request().annotation("tandem.dev/partition"));
  }

  /** Pending turning Running, or Ready flapping, would cost a workflow task per pod for nothing. */
  @Test
  void aBoundPodsStartOrReadinessIsNotSentButItsEndIs() {
    PodView pending =
        new PodView(true, "p", "u1", null, "Pending", false, "k1", false, null, null, null);
    PodView running =
        new PodView(true, "p", "u1", null, "Running", true, "k1", false, null, null, null);
    assertTrue(SchedulingPodWatcher.sameForScheduling(pending, running));
    PodView failed =
        new PodView(true, "p", "u1", null, "Failed", false, "k1", false, null, null, null);
    assertFalse(SchedulingPodWatcher.sameForScheduling(running, failed));
    PodView going =
        new PodView(true, "p", "u1", null, "Running", true, "k1", true, null, null, null);
    assertFalse(SchedulingPodWatcher.sameForScheduling(running, going));
    PodView moved =
        new PodView(true, "p", "u1", null, "Running", true, "k2", false, null, null, null);
    assertFalse(SchedulingPodWatcher.sameForScheduling(running, moved));
    assertFalse(SchedulingPodWatcher.sameForScheduling(running, PodView.absent("p")));
  }

  @Test
  void aResyncPassSendsAgain() {
    watcher.close();
    watcher = watcher(Duration.ofSeconds(1));
    create("train-0");
    Wait.until("sent again on resync", Duration.ofSeconds(20), () -> starts().size() >= 3);
    assertEquals(1, starts().stream().map(Sent::target).distinct().count());
  }

  @Test
  void aPodMarkedInvalidIsNotStartedAgainOnResyncButARequestChangedInPlaceIs() throws Exception {
    watcher.close();
    watcher = watcher(Duration.ofSeconds(1));
    create("bad-0");
    Wait.until("start", () -> !starts().isEmpty());
    // The workflow's verdict, as it writes it before it ends INVALID.
    client
        .pods()
        .withName("bad-0")
        .editStatus(
            x ->
                new PodBuilder(x)
                    .editOrNewStatus()
                    .addNewCondition()
                    .withType("SlurmScheduled")
                    .withStatus("False")
                    .withReason("InvalidPod")
                    .withMessage("Slurm refused the placeholder job: ...")
                    .endCondition()
                    .endStatus()
                    .build());
    Thread.sleep(1500); // the update reaches the informer's cache
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    int before = starts().size();
    Thread.sleep(3500); // three resync passes at 1 s
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    assertEquals(before, starts().size(), "a pod marked invalid is not started again: " + starts());

    client
        .pods()
        .withName("bad-0")
        .edit(
            x ->
                new PodBuilder(x)
                    .editMetadata()
                    .addToAnnotations("tandem.dev/partition", "other")
                    .endMetadata()
                    .build());
    Wait.until("fixed in place: started again", () -> starts().size() == before + 1);
  }

  @Test
  void aRestartedWatcherSendsSignalWithStartAgainToTheSameWorkflow() throws Exception {
    Pod p = create("train-0");
    Wait.until("start", () -> starts().size() == 1);
    watcher.close();
    watcher = watcher(RESYNC);
    Wait.until("start again", () -> starts().size() == 2);
    assertEquals(workflowId(p), starts().get(1).target(), "the same id: Temporal keeps one");
  }

  @Test
  void tagsRouteToThePodsWorkflowOrTheGangsWhileAPodClaimsThem() throws Exception {
    Pod p = create("train-0");
    Pod member =
        client
            .pods()
            .resource(
                new PodBuilder(pod("gang-0", "tandem-slurm"))
                    .editMetadata()
                    .addToAnnotations("tandem.dev/pod-group", "llm")
                    .addToAnnotations("tandem.dev/group-size", "2")
                    .endMetadata()
                    .build())
            .create();
    String uid = p.getMetadata().getUid();
    Wait.until("cached", () -> watcher.workflowIdForTag(uid).isPresent());
    assertTrue(watcher.routesKnown());
    assertEquals(Optional.of(workflowId(p)), watcher.workflowIdForTag(uid));
    Wait.until(
        "member cached",
        () -> watcher.workflowIdForTag(client.getNamespace() + ".llm.1a2b3c4d").isPresent());
    assertEquals(
        Optional.of("schedule-group/" + client.getNamespace() + "/llm"),
        watcher.workflowIdForTag(client.getNamespace() + ".llm.1a2b3c4d"));
    assertEquals(
        Optional.empty(), watcher.workflowIdForTag(client.getNamespace() + ".other.1a2b3c4d"));
    assertEquals(Optional.empty(), watcher.workflowIdForTag("no-such-uid"));
    // A gang member goes to its group's workflow, never to a per-pod one.
    Wait.until(
        "member start",
        () ->
            signals.named("podGroupMember").stream()
                .anyMatch(
                    s -> s.target().equals("schedule-group/" + client.getNamespace() + "/llm")));
    assertTrue(starts().stream().noneMatch(s -> s.target().equals(workflowId(member))));

    client.pods().withName("gang-0").withGracePeriod(0).delete();
    Wait.until(
        "gang gone",
        () -> watcher.workflowIdForTag(client.getNamespace() + ".llm.1a2b3c4d").isEmpty());
    watcher.close();
    assertFalse(watcher.routesKnown());
    assertEquals(Optional.empty(), watcher.workflowIdForTag(uid));
  }
}
