package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.testing.MutableClock;
import dev.tandem.workflows.model.SlurmNodeView;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Slurm poller remembers views as soon as it reads them; a {@code slurmObserved} that Temporal
 * never accepted must still reach the node workflow: on the next changed listing, and at the latest
 * on the next full resync, even when the node has vanished from Slurm meanwhile.
 */
@ExtendWith(KubeNamespace.class)
class SlurmPollerDeliveryTest extends WatcherTestBase {
  static KubernetesClient client;

  private final FakeSlurmClient slurm = new FakeSlurmClient();
  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private PodWatcher pods;
  private SlurmPoller poller;

  @BeforeEach
  void start() {
    pods = podWatcher(client);
    pods.start();
    client.pods().resource(K8sObjects.slurmdPod("gpu-0", null).build()).create();
    Wait.until("pod cached", () -> pods.podFor("gpu-0").isPresent());
    poller = slurmPoller(client, slurm, pods, Duration.ofMillis(50), Duration.ofMinutes(1), clock);
    slurm.put("gpu-0", "idle", Set.of(), null);
    poller.pollOnceSafely(); // the first poll is a full one
    Wait.until("first view delivered", () -> !observed().isEmpty());
    signals.clear();
  }

  @AfterEach
  void stop() {
    poller.close();
    pods.close();
  }

  private List<SlurmNodeView> observed() {
    return signals.named("slurmObserved").stream().map(s -> (SlurmNodeView) s.payload()).toList();
  }

  /** Polls while Temporal is down until the poller's signal for gpu-0 was given up. */
  private void pollWhileTemporalIsDown() throws InterruptedException {
    signals.fail = true;
    double before = dropped();
    poller.pollOnceSafely();
    Wait.until("slurmObserved given up", () -> dropped() > before);
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
    Wait.until("re-sent", () -> !observed().isEmpty());
    assertTrue(observed().get(0).drainFlag());
  }

  @Test
  void aLostSlurmObservedIsResentOnTheNextChangedListing() throws Exception {
    slurm.put("gpu-0", "idle", Set.of("DRAIN"), "disk");
    pollWhileTemporalIsDown();
    slurm.put("n9", "idle", Set.of(), null); // some other node changes: a changed listing
    poller.pollOnceSafely();
    Wait.until("re-sent", () -> !observed().isEmpty());
    assertEquals("gpu-0", observed().get(0).name());
    assertTrue(observed().get(0).drainFlag());
  }

  @Test
  void aNodeThatVanishedWhileItsSignalWasLostIsReportedUnknownLater() throws Exception {
    slurm.remove("gpu-0");
    pollWhileTemporalIsDown();
    clock.advance(Duration.ofSeconds(61));
    poller.pollOnceSafely(); // the full resync: gpu-0 is not listed at all
    Wait.until("unknown re-sent", () -> !observed().isEmpty());
    assertEquals("gpu-0", observed().get(0).name());
    assertTrue(!observed().get(0).known(), observed().toString());
    signals.clear();
    clock.advance(Duration.ofSeconds(61));
    poller.pollOnceSafely();
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    assertTrue(observed().isEmpty(), "delivered once, then forgotten: " + observed());
  }
}
