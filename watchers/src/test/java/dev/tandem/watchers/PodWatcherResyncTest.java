package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.testing.MutableClock;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.PodView;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The pod watcher's informer resync resends a pod's view only when its node workflow has not taken
 * exactly that view lately: a resync repairs failed deliveries, and resending every unchanged view
 * woke every node workflow once per resync.
 */
@ExtendWith(KubeNamespace.class)
class PodWatcherResyncTest extends WatcherTestBase {
  static KubernetesClient client;

  private static final Duration SHORT = Duration.ofSeconds(1);
  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-28T10:00:00Z"));
  private PodWatcher pods;

  @AfterEach
  void stop() {
    if (pods != null) {
      pods.close();
    }
  }

  private int podSignals() {
    return signals.named(Names.SIGNAL_POD_OBSERVED).size();
  }

  private List<PodView> goneViews() {
    return signals.named(Names.SIGNAL_POD_OBSERVED).stream()
        .map(s -> (PodView) s.payload())
        .filter(v -> !v.exists())
        .toList();
  }

  private void start() {
    pods = new PodWatcher(client, coalescer, signals, metrics, SHORT).clock(clock);
    pods.start();
    Wait.until("synced", () -> pods.synced());
  }

  private static Pod pod(String name) {
    return K8sObjects.slurmdPod(name, null)
        .editMetadata()
        .addToLabels("tandem.dev/revision", "r1")
        .endMetadata()
        .build();
  }

  @Test
  void aDeliveredViewIsNotResentOnEveryResyncButOnceInAWhile() throws Exception {
    start();
    client.pods().resource(pod("rs-0")).create();
    Wait.until("the add delivered", () -> podSignals() == 1);
    Thread.sleep(SHORT.toMillis() * 7 / 2); // three resync passes or so
    assertEquals(1, podSignals(), "unchanged and delivered: not resent");

    clock.advance(SHORT.multipliedBy(PodWatcher.RESEND_EVERY));
    Wait.until("resent once the delivery is old", () -> podSignals() >= 2);
  }

  /**
   * A deleted pod is reported gone with its uid and creation time, so that a node workflow already
   * holding the pod's successor can tell the late news is not about that one ({@code
   * Observations.earlierPod}).
   */
  @Test
  void aDeletedPodIsReportedGoneWithItsUidAndCreationTime() {
    start();
    Pod created = client.pods().resource(pod("gone-0")).create();
    Wait.until("the add delivered", () -> podSignals() == 1);
    client.pods().withName("gone-0").withGracePeriod(0).delete();
    // The API server may show the deletion as an update (deletionTimestamp set) before it ends.
    Wait.until("the delete delivered", () -> goneViews().size() == 1);
    PodView gone = goneViews().get(0);
    assertEquals(created.getMetadata().getUid(), gone.uid());
    assertEquals(Instant.parse(created.getMetadata().getCreationTimestamp()), gone.createdAt());
  }

  /**
   * The resends of taken views are capped per resync pass (issue 14): the rest go in a later pass.
   * The test clock stands still between passes, so every pass here is within one budget until it
   * moves on.
   */
  @Test
  void resendsOfTakenViewsAreCappedPerPassAndTheRestGoLater() throws Exception {
    start();
    int n = PodWatcher.RESEND_MAX + 50;
    for (int i = 0; i < n; i++) {
      client.pods().resource(pod("cap-" + i)).create();
    }
    Wait.until("the adds delivered", () -> podSignals() == n);
    assertTrue(coalescer.drain(Duration.ofSeconds(10)));
    clock.advance(SHORT.multipliedBy(PodWatcher.RESEND_EVERY));
    Wait.until("a capped pass", () -> podSignals() >= n + PodWatcher.RESEND_MAX);
    Thread.sleep(SHORT.toMillis() * 5 / 2); // more passes, within the same budget
    assertTrue(coalescer.drain(Duration.ofSeconds(10)));
    assertEquals(n + PodWatcher.RESEND_MAX, podSignals(), "no more than the cap in one budget");
    clock.advance(SHORT);
    Wait.until("the rest in the next budget", () -> podSignals() == 2 * n);
  }

  @Test
  void aViewWhoseDeliveryFailedIsResentByTheResync() throws Exception {
    start();
    signals.fail = true;
    client.pods().resource(pod("rs-1")).create();
    Wait.until("given up", () -> dropped() >= 1);
    signals.fail = false;
    Wait.until("resent by a resync", () -> podSignals() >= 1);
  }
}
