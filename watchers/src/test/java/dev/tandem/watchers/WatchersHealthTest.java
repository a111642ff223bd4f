package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.api.ApiFaults;
import dev.tandem.devstack.api.LocalApiServer;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmNode;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link Watchers#problem()} (the worker's {@code /healthz}) reports while this replica
 * watches: an informer the supervisor cannot restart, a dead Slurm poller thread, a closed
 * coalescer; and nothing while all is well.
 */
class WatchersHealthTest {
  private LocalApiServer api;
  private Replica replica;

  @BeforeEach
  void start() throws Exception {
    api = LocalApi.start();
  }

  @AfterEach
  void stop() {
    api.faults().clear();
    if (replica != null) {
      replica.close();
    }
    api.close();
  }

  @Test
  void aHealthyLeaderHasNoProblem() throws Exception {
    replica = new Replica(api, "a");
    replica.watchers.startWatching();
    Wait.until("watching", replica::watching);
    Thread.sleep(1500); // a few supervisor rounds
    assertNull(replica.watchers.problem());
  }

  @Test
  void anInformerThatCannotBeRestartedIsReportedAndClearsWhenItRuns() {
    // Listing pods is refused: the pod informer's first listing fails, so it stops for good,
    // and every restart by the supervisor fails the same way.
    api.faults()
        .failMatching(
            ApiFaults.resource("pods").and(r -> r.method().equals("GET")),
            403,
            Duration.ofMinutes(1));
    replica = new Replica(api, "a");
    replica.watchers.startWatching();
    Wait.until(
        "the dead pod informer reported",
        () -> {
          String p = replica.watchers.problem();
          return p != null
              && p.contains("the pod informer stopped")
              && p.contains("the scheduling-pod informer stopped");
        });
    assertTrue(replica.counter("tandem.watcher.errors", "source", "informer-restart") >= 2);
    api.faults().clear();
    Wait.until(
        "restarted and healthy", () -> replica.watching() && replica.watchers.problem() == null);
  }

  @Test
  void aDeadSlurmPollerThreadIsReported() {
    FakeSlurmClient broken =
        new FakeSlurmClient() {
          @Override
          public synchronized Listing<SlurmNode> listNodes(Instant since) {
            throw new StackOverflowError("test: the poller thread dies of an Error");
          }
        };
    replica = new Replica(api, "a", broken);
    replica.watchers.startWatching();
    Wait.until(
        "the dead poller reported",
        () -> {
          String p = replica.watchers.problem();
          return p != null && p.contains("the Slurm poller thread died");
        });
  }

  @Test
  void aClosedCoalescerIsReported() {
    replica = new Replica(api, "a");
    replica.watchers.startWatching();
    Wait.until("watching", replica::watching);
    replica.watchers.coalescer().close();
    String p = replica.watchers.problem();
    assertTrue(p != null && p.contains("coalescer is closed"), p);
  }
}
