package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** fabric8 leader election on Leases (what the workers use) hands over between two candidates. */
class LeaderElectionTest extends ApiTestBase {
  private CompletableFuture<?> elect(String id, List<String> log) {
    return client
        .leaderElector()
        .withConfig(
            new LeaderElectionConfigBuilder()
                .withName("tandem")
                .withLock(new LeaseLock("default", "tandem-leader", id))
                .withLeaseDuration(Duration.ofSeconds(2))
                .withRenewDeadline(Duration.ofMillis(1500))
                .withRetryPeriod(Duration.ofMillis(200))
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(
                    new LeaderCallbacks(
                        () -> log.add("lead " + id), () -> log.add("stop " + id), leader -> {}))
                .build())
        .build()
        .start();
  }

  @Test
  void leadershipMovesWhenTheLeaderStops() {
    List<String> log = new CopyOnWriteArrayList<>();
    CompletableFuture<?> a = elect("a", log);
    await(Duration.ofSeconds(10), () -> log.contains("lead a"), "a leads");
    CompletableFuture<?> b = elect("b", log);
    try {
      a.cancel(true);
      await(Duration.ofSeconds(10), () -> log.contains("lead b"), "b takes over");
      assertEquals(
          "b",
          client
              .leases()
              .inNamespace("default")
              .withName("tandem-leader")
              .get()
              .getSpec()
              .getHolderIdentity());
    } finally {
      b.cancel(true);
    }
  }
}
