package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tandem.workflows.model.SlurmNodeView;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class SlurmPollerTest {
  static KubernetesClient client;

  private final RecordingSignals signals = new RecordingSignals();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final WatcherMetrics metrics = new WatcherMetrics(registry);
  private final FakeSlurmClient slurm = new FakeSlurmClient();
  private Coalescer coalescer;
  private PodWatcher pods;
  private SlurmPoller poller;

  @BeforeEach
  void start() {
    coalescer = new Coalescer(2, Duration.ofMillis(20), metrics);
    pods = new PodWatcher(client, coalescer, signals, metrics, Duration.ofMinutes(10));
    pods.start();
    client
        .pods()
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("gpu-0")
                .withNamespace("default")
                .addToLabels("tandem.dev/nodeset", "gpu")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("slurmd")
                .withImage("slurmd")
                .endContainer()
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .endStatus()
                .build())
        .create();
    await("pod cached", () -> pods.podFor("gpu-0").isPresent());
    poller =
        new SlurmPoller(
            slurm,
            pods,
            coalescer,
            signals,
            new SlurmMirror(client, Clock.systemUTC()),
            metrics,
            Duration.ofMillis(50),
            Duration.ofHours(1),
            Clock.systemUTC());
  }

  @AfterEach
  void stop() {
    poller.close();
    pods.close();
    coalescer.close();
    client.pods().inAnyNamespace().delete();
  }

  private static void await(String what, BooleanSupplier c) {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < end) {
      if (c.getAsBoolean()) {
        return;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }
    fail("timed out waiting for " + what);
  }

  private Pod pod() {
    return client.pods().inNamespace("default").withName("gpu-0").get();
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
    await("signal", () -> !signals.matching(s -> s.signal().equals("slurmObserved")).isEmpty());
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
    await(
        "drain seen",
        () ->
            signals.all().stream()
                .anyMatch(s -> s.payload() instanceof SlurmNodeView v && v.drainFlag()));
  }

  @Test
  void anAdministratorsDrainIsMirroredOnThePodAndCleared() {
    slurm.put("gpu-0", "idle", Set.of("DRAIN"), "disk");
    poller.pollOnceSafely();
    await(
        "annotation",
        () ->
            "disk"
                .equals(
                    pod().getMetadata().getAnnotations() == null
                        ? null
                        : pod().getMetadata().getAnnotations().get(SlurmMirror.REASON)));
    assertEquals("idle+DRAIN", pod().getMetadata().getAnnotations().get(SlurmMirror.STATE));
    await("condition", () -> condition() != null);
    assertEquals("False", condition().getStatus());
    assertEquals("SlurmDrained", condition().getReason());
    assertEquals("disk", condition().getMessage());
    assertTrue(
        pod().getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("Ready")),
        "the kubelet's conditions stay");

    slurm.put("gpu-0", "idle", Set.of(), null);
    poller.pollOnceSafely();
    await("cleared", () -> "True".equals(condition().getStatus()));
    var ann = pod().getMetadata().getAnnotations();
    assertNull(ann == null ? null : ann.get(SlurmMirror.REASON));
    assertNull(ann == null ? null : ann.get(SlurmMirror.STATE));
  }

  @Test
  void tandemsOwnDrainIsNotMirroredButANotRespondingNodeIs() {
    slurm.put("gpu-0", "idle", Set.of("DRAIN"), "tandem:update: rev a -> b");
    poller.pollOnceSafely();
    assertTrue(coalescerDrained());
    assertNull(condition());
    slurm.put("gpu-0", "idle", Set.of("NOT_RESPONDING"), null);
    poller.pollOnceSafely();
    await("condition", () -> condition() != null);
    assertEquals("NotResponding", condition().getReason());
  }

  @Test
  void anOutageIsReportedOnceAndPollingBacksOff() {
    slurm.put("gpu-0", "idle", Set.of(), null);
    poller.pollOnceSafely();
    slurm.down = true;
    for (int i = 0; i < 4; i++) {
      poller.pollOnceSafely();
    }
    assertEquals(0.0, registry.get("tandem.slurm.up").gauge().value());
    slurm.down = false;
    poller.pollOnceSafely();
    assertEquals(1.0, registry.get("tandem.slurm.up").gauge().value());
  }

  private boolean coalescerDrained() {
    try {
      return coalescer.drain(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
