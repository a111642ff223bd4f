package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.model.SlurmNodeView;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(KubeNamespace.class)
class SlurmPollerTest extends WatcherTestBase {
  static KubernetesClient client;

  private final FakeSlurmClient slurm = new FakeSlurmClient();
  private PodWatcher pods;
  private SlurmPoller poller;

  @BeforeEach
  void start() {
    pods = podWatcher(client);
    pods.start();
    // As on a real API server, a pod's status is not taken on create: the kubelet writes it
    // through the status subresource.
    Pod created = client.pods().resource(K8sObjects.slurmdPod("gpu-0", null).build()).create();
    created.setStatus(
        new PodStatusBuilder()
            .withPhase("Running")
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .endCondition()
            .build());
    client.pods().resource(created).updateStatus();
    Wait.until("pod cached", () -> pods.podFor("gpu-0").isPresent());
    poller =
        slurmPoller(
            client, slurm, pods, Duration.ofMillis(50), Duration.ofHours(1), Clock.systemUTC());
  }

  @AfterEach
  void stop() {
    poller.close();
    pods.close();
  }

  private Pod pod() {
    return client.pods().withName("gpu-0").get();
  }

  private PodCondition condition() {
    return pod().getStatus().getConditions().stream()
        .filter(c -> c.getType().equals(SlurmMirror.CONDITION))
        .findFirst()
        .orElse(null);
  }

  @Test
  void changesBecomeSlurmObservedAndUnchangedPollsCostNothing() throws Exception {
    slurm.put("gpu-0", "idle", Set.of(), null);
    slurm.put("n1", "idle", Set.of(), null); // not Tandem's: no pod
    poller.pollOnceSafely();
    Wait.until("signal", () -> !signals.named("slurmObserved").isEmpty());
    assertTrue(signals.all().stream().noneMatch(s -> s.target().endsWith("/n1")));
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    int before = signals.all().size();
    for (int i = 0; i < 5; i++) {
      poller.pollOnceSafely();
    }
    assertEquals(5, slurm.unchangedAnswers.get(), "unchanged cluster: incremental answers");
    assertEquals(before, signals.all().size(), "no signal when nothing changed");
    slurm.put("gpu-0", "idle", Set.of("DRAIN"), "tandem:manual: x");
    poller.pollOnceSafely();
    Wait.until(
        "drain seen",
        () ->
            signals.all().stream()
                .anyMatch(s -> s.payload() instanceof SlurmNodeView v && v.drainFlag()));
  }

  /**
   * A full listing of an unchanged cluster sends nothing, except every node once in {@code
   * RESEND_ALL_EVERY} full listings (before, every node on every full listing: a signal per node
   * per minute at rest).
   */
  @Test
  void fullListingsOfAnUnchangedClusterSendEveryNodeOnlyOnceInAWhile() throws Exception {
    poller.close();
    poller =
        slurmPoller(client, slurm, pods, Duration.ofMillis(50), Duration.ZERO, Clock.systemUTC());
    slurm.put("gpu-0", "idle", Set.of(), null);
    poller.pollOnceSafely(); // full listing 1: new, sent
    Wait.until("first signal", () -> signals.named("slurmObserved").size() == 1);
    for (int i = 2; i < SlurmNodeTracker.RESEND_ALL_EVERY; i++) {
      poller.pollOnceSafely();
    }
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    assertEquals(1, signals.named("slurmObserved").size(), "unchanged: nothing sent");
    poller.pollOnceSafely(); // full listing RESEND_ALL_EVERY: everything again
    Wait.until("sent again", () -> signals.named("slurmObserved").size() == 2);
  }

  /**
   * Health asks "is the poller thread dead?" at any moment, also while a new leader term starts it:
   * a thread assigned but not started yet is not dead (found by LeadershipIT on a loaded machine).
   */
  @Test
  void aPollerThreadNotStartedYetIsNotReportedDeadButAnEndedOneIs() throws Exception {
    java.lang.reflect.Field thread = SlurmPoller.class.getDeclaredField("thread");
    thread.setAccessible(true);
    thread.set(poller, new Thread(() -> {}));
    assertNull(poller.problem());
    Thread ended = new Thread(() -> {});
    ended.start();
    ended.join();
    thread.set(poller, ended);
    assertEquals("the Slurm poller thread died", poller.problem());
  }

  @Test
  void anAdministratorsDrainIsMirroredOnThePodAndCleared() {
    slurm.put("gpu-0", "idle", Set.of("DRAIN"), "disk");
    poller.pollOnceSafely();
    Wait.until(
        "annotation",
        () ->
            "disk"
                .equals(
                    pod().getMetadata().getAnnotations() == null
                        ? null
                        : pod().getMetadata().getAnnotations().get(SlurmMirror.REASON)));
    assertEquals("idle+DRAIN", pod().getMetadata().getAnnotations().get(SlurmMirror.STATE));
    Wait.until("condition", () -> condition() != null);
    assertEquals("False", condition().getStatus());
    assertEquals("SlurmDrained", condition().getReason());
    assertEquals("disk", condition().getMessage());
    assertTrue(
        pod().getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("Ready")),
        "the kubelet's conditions stay");

    slurm.put("gpu-0", "idle", Set.of(), null);
    poller.pollOnceSafely();
    Wait.until("cleared", () -> "True".equals(condition().getStatus()));
    var ann = pod().getMetadata().getAnnotations();
    assertNull(ann == null ? null : ann.get(SlurmMirror.REASON));
    assertNull(ann == null ? null : ann.get(SlurmMirror.STATE));
  }

  /**
   * A pod read before the kubelet wrote its conditions: the mirror's write must not replace the
   * Ready condition the kubelet wrote since (found by {@code tandem bench fleet}: a new slurmd pod
   * not responding yet lost Ready for good). The stale write fails and a fresh one keeps both.
   */
  @Test
  void aConditionWrittenFromAStaleReadNeverDropsTheKubeletsConditions() {
    Pod stale = client.pods().resource(K8sObjects.slurmdPod("gpu-1", null).build()).create();
    Pod fresh = client.pods().withName("gpu-1").get();
    fresh.setStatus(
        new PodStatusBuilder()
            .withPhase("Running")
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .endCondition()
            .build());
    client.pods().resource(fresh).updateStatus();
    SlurmMirror mirror = new SlurmMirror(client, Clock.systemUTC());
    SlurmMirror.Desired sick = new SlurmMirror.Desired(false, "idle+NOT_RESPONDING", "x", "NR");
    assertThrows(
        io.fabric8.kubernetes.client.KubernetesClientException.class,
        () -> mirror.apply(stale, sick),
        "read without conditions, written since");
    Pod now = client.pods().withName("gpu-1").get();
    assertEquals(List.of("Ready"), types(now), "the kubelet's condition stays");
    mirror.apply(now, sick);
    assertEquals(
        List.of("Ready", SlurmMirror.CONDITION), types(client.pods().withName("gpu-1").get()));
  }

  private static List<String> types(Pod p) {
    return p.getStatus().getConditions().stream().map(PodCondition::getType).toList();
  }

  @Test
  void tandemsOwnDrainIsNotMirroredButANotRespondingNodeIs() {
    slurm.put("gpu-0", "idle", Set.of("DRAIN"), "tandem:update: rev a -> b");
    poller.pollOnceSafely();
    assertTrue(coalescerDrained());
    assertNull(condition());
    slurm.put("gpu-0", "idle", Set.of("NOT_RESPONDING"), null);
    poller.pollOnceSafely();
    Wait.until("condition", () -> condition() != null);
    assertEquals("NotResponding", condition().getReason());
  }

  /**
   * An outage is told at the first failed poll and the return at the first poll that answers; that
   * poll lists every node (changes were missed), and the poller never waits longer than its
   * interval meanwhile.
   */
  @Test
  void anOutageAndTheReturnAreReportedAtTheFirstPollThatShowsThem() {
    List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();
    poller.onReachability((component, reachable, message) -> told.add(reachable + ": " + message));
    slurm.put("gpu-0", "idle", Set.of(), null);
    poller.pollOnceSafely();
    poller.pollOnceSafely();
    int full = slurm.fullNodeListings.get();
    slurm.down = true;
    for (int i = 0; i < 6; i++) {
      poller.pollOnceSafely();
      assertEquals(Duration.ofMillis(50), poller.nextDelay(), "the interval, not a backoff");
    }
    assertEquals(0.0, registry.get("tandem.slurm.up").gauge().value());
    assertEquals("false: cannot reach slurmrestd: connection refused (fake)", told.get(2));
    slurm.down = false;
    poller.pollOnceSafely();
    assertEquals(1.0, registry.get("tandem.slurm.up").gauge().value());
    assertEquals("true: slurmrestd answers", told.get(told.size() - 1));
    assertEquals(full + 1, slurm.fullNodeListings.get(), "the first poll back lists everything");
    poller.pollOnceSafely();
    assertEquals(full + 1, slurm.fullNodeListings.get(), "then incremental again");
  }

  /** The drain-stuck alert's inputs: Tandem's nodes draining with jobs still on them. */
  @Test
  void drainingNodesAndTheOldestDrainAreMeasured() {
    slurm.put("gpu-0", "mixed", Set.of("DRAIN"), "tandem:manual: x");
    slurm.put("n1", "mixed", Set.of("DRAIN"), "admin"); // not Tandem's: no pod
    poller.pollOnceSafely();
    assertEquals(1.0, registry.get("tandem.slurm.draining.nodes").gauge().value());
    assertTrue(registry.get("tandem.slurm.drain.oldest.seconds").gauge().value() >= 0);
    slurm.put("gpu-0", "idle", Set.of("DRAIN"), "tandem:manual: x"); // drained: no job left
    poller.pollOnceSafely();
    assertEquals(0.0, registry.get("tandem.slurm.draining.nodes").gauge().value());
    assertEquals(0.0, registry.get("tandem.slurm.drain.oldest.seconds").gauge().value());
  }

  @Test
  void aDrainingNodesAgeCountsFromTheFirstListingThatShowedIt() {
    dev.tandem.slurm.testing.MutableClock clock =
        new dev.tandem.slurm.testing.MutableClock(java.time.Instant.parse("2026-11-24T10:00:00Z"));
    DrainAges ages = new DrainAges(clock);
    dev.tandem.workflows.model.SlurmNodeView v =
        new dev.tandem.workflows.model.SlurmNodeView(
            "gpu-0", true, "allocated", Set.of("DRAIN"), "r", "root", null, clock.instant());
    ages.observed(v, clock.instant());
    clock.advance(Duration.ofHours(3));
    ages.observed(v, clock.instant()); // still draining: the first sighting counts
    assertEquals(3 * 3600.0, ages.oldestSeconds());
    ages.gone("gpu-0");
    assertEquals(0, ages.count());
  }

  @Test
  void aRefusedTokenIsReportedAsSuchNotAsAnOutage() {
    assertTrue(
        SlurmPoller.problem(new dev.tandem.slurm.SlurmUnauthorizedException("Slurm error 1007"))
            .startsWith("slurmrestd answers but refuses Tandem's credentials"));
    assertTrue(
        SlurmPoller.problem(new dev.tandem.slurm.SlurmUnavailableException("connection refused"))
            .startsWith("cannot reach slurmrestd"));
  }

  private boolean coalescerDrained() {
    try {
      return coalescer.drain(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
