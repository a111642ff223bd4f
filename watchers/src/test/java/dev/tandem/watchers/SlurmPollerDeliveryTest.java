package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.tandem.slurm.testing.MutableClock;
import dev.tandem.workflows.model.SlurmNodeView;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Slurm poller remembers views as soon as it reads them; a {@code slurmObserved} that Temporal
 * never accepted must still reach the node workflow: on the next changed listing, and at the latest
 * on the next full resync, even when the node has vanished from Slurm meanwhile.
 */
@EnableKubernetesMockClient(crud = true)
class SlurmPollerDeliveryTest {
  static KubernetesClient client;

  private final RecordingSignals signals = new RecordingSignals();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final WatcherMetrics metrics = new WatcherMetrics(registry);
  private final FakeSlurmClient slurm = new FakeSlurmClient();
  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
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
                .build())
        .create();
    await("pod cached", () -> pods.podFor("gpu-0").isPresent());
    poller =
        new SlurmPoller(
            slurm,
            pods,
            coalescer,
            signals,
            new SlurmMirror(client, clock),
            metrics,
            Duration.ofMillis(50),
            Duration.ofMinutes(1),
            clock);
    slurm.put("gpu-0", "idle", Set.of(), null);
    poller.pollOnceSafely(); // the first poll is a full one
    await("first view delivered", () -> !observed().isEmpty());
    signals.clear();
  }

  @AfterEach
  void stop() {
    poller.close();
    pods.close();
    coalescer.close();
    client.pods().inAnyNamespace().delete();
  }

  private List<SlurmNodeView> observed() {
    return signals.matching(s -> s.signal().equals("slurmObserved")).stream()
        .map(s -> (SlurmNodeView) s.payload())
        .toList();
  }

  private double dropped() {
    return registry.get("tandem.watcher.errors").tag("source", "signal-dropped").counter().count();
  }

  /** Polls while Temporal is down until the poller's signal for gpu-0 was given up. */
  private void pollWhileTemporalIsDown() throws InterruptedException {
    signals.fail = true;
    double before = dropped();
    poller.pollOnceSafely();
    await("slurmObserved given up", () -> dropped() > before);
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    signals.fail = false;
  }

  @Test
  void aLostSlurmObservedIsRepairedByTheNextFullResync() throws Exception {
    slurm.put("gpu-0", "idle", Set.of("DRAIN"), "disk");
    pollWhileTemporalIsDown();
    poller.pollOnceSafely(); // incremental, nothing changed
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    assertTrue(observed().isEmpty(), "nothing changed since: " + observed());
    clock.advance(Duration.ofSeconds(61));
    poller.pollOnceSafely(); // the full resync
    await("re-sent", () -> !observed().isEmpty());
    assertTrue(observed().get(0).drainFlag());
  }

  @Test
  void aLostSlurmObservedIsResentOnTheNextChangedListing() throws Exception {
    slurm.put("gpu-0", "idle", Set.of("DRAIN"), "disk");
    pollWhileTemporalIsDown();
    slurm.put("n9", "idle", Set.of(), null); // some other node changes: a changed listing
    poller.pollOnceSafely();
    await("re-sent", () -> !observed().isEmpty());
    assertEquals("gpu-0", observed().get(0).name());
    assertTrue(observed().get(0).drainFlag());
  }

  @Test
  void aNodeThatVanishedWhileItsSignalWasLostIsReportedUnknownLater() throws Exception {
    slurm.remove("gpu-0");
    pollWhileTemporalIsDown();
    clock.advance(Duration.ofSeconds(61));
    poller.pollOnceSafely(); // the full resync: gpu-0 is not listed at all
    await("unknown re-sent", () -> !observed().isEmpty());
    assertEquals("gpu-0", observed().get(0).name());
    assertTrue(!observed().get(0).known(), observed().toString());
    signals.clear();
    clock.advance(Duration.ofSeconds(61));
    poller.pollOnceSafely();
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    assertTrue(observed().isEmpty(), "delivered once, then forgotten: " + observed());
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
}
