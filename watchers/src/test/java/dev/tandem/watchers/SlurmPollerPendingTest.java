package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.slurm.testing.MutableClock;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * While a pod waits for Slurm, jobs are listed on the short pending interval and nodes stay on the
 * poll interval; with nothing waiting, or Slurm failing, the poll interval holds (no backoff).
 */
@ExtendWith(KubeNamespace.class)
class SlurmPollerPendingTest extends WatcherTestBase {
  static KubernetesClient client;

  private final FakeSlurmClient slurm = new FakeSlurmClient();
  private final MutableClock clock = new MutableClock(Instant.parse("2026-11-24T10:00:00Z"));
  private final AtomicBoolean waiting = new AtomicBoolean();
  private PodWatcher pods;
  private SlurmPoller poller;

  @BeforeEach
  void start() {
    pods = podWatcher(client);
    poller =
        slurmPoller(client, slurm, pods, Duration.ofSeconds(2), Duration.ofHours(1), clock)
            .pendingInterval(Duration.ofMillis(250));
    poller.routeJobs(
        new JobRoutes() {
          @Override
          public Optional<String> workflowIdForTag(String tag) {
            return Optional.empty();
          }

          @Override
          public boolean routesKnown() {
            return false;
          }

          @Override
          public boolean podsWaiting() {
            return waiting.get();
          }
        });
  }

  @AfterEach
  void stop() {
    poller.close();
    pods.close();
  }

  @Test
  void waitingPodsShortenTheJobListingOnlyAndOnlyWhileSlurmAnswers() {
    assertEquals(Duration.ofSeconds(2), poller.nextDelay(), "nothing waits: the poll interval");
    waiting.set(true);
    assertEquals(Duration.ofMillis(250), poller.nextDelay(), "a pod waits: the pending interval");

    // Two seconds of polls every 250 ms: jobs listed each time, nodes once per interval.
    for (int i = 0; i < 8; i++) {
      poller.step();
      clock.advance(Duration.ofMillis(250));
    }
    assertEquals(8, slurm.jobCalls.get(), "jobs every pending interval");
    assertEquals(1, slurm.nodeCalls.get(), "nodes only on the poll interval");
    poller.step();
    assertEquals(2, slurm.nodeCalls.get(), "nodes again after the interval");

    slurm.down = true;
    for (int i = 0; i < 5; i++) {
      poller.step();
      assertEquals(
          Duration.ofSeconds(2), poller.nextDelay(), "Slurm failing: the interval, no backoff");
      clock.advance(Duration.ofSeconds(2));
    }
    slurm.down = false;
    poller.step();
    assertEquals(Duration.ofMillis(250), poller.nextDelay());

    poller.pendingInterval(Duration.ZERO);
    assertEquals(Duration.ofSeconds(2), poller.nextDelay(), "0s turns it off");
  }
}
