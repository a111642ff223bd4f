package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.faults.ApiFaults;
import dev.tandem.devstack.faults.KubeApiProxy;
import dev.tandem.slurm.SlurmClient.Listing;
import dev.tandem.slurm.SlurmNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What {@link Watchers#problem()} (the worker's {@code /healthz}) reports while this replica
 * watches: an informer the supervisor cannot restart, a dead Slurm poller thread, a closed
 * coalescer; and nothing while all is well.
 */
@ExtendWith(KubeNamespace.class)
class WatchersHealthTest {
  static KubernetesClient admin;

  private KubeApiProxy proxy;
  private Replica replica;

  @BeforeEach
  void start() throws Exception {
    proxy = KubeNamespace.proxy();
  }

  @AfterEach
  void stop() {
    if (replica != null) {
      replica.close();
    }
    proxy.close();
  }

  @Test
  void aHealthyLeaderHasNoProblem() throws Exception {
    replica = new Replica(KubeNamespace.through(proxy, admin), "a");
    replica.watchers.startWatching();
    Wait.until("watching", replica::watching);
    Thread.sleep(1500); // a few supervisor rounds
    assertNull(replica.watchers.problem());
  }

  @Test
  void anInformerThatCannotBeRestartedIsReportedAndClearsWhenItRuns() {
    // Listing pods is refused: the pod informer's first listing fails, so it stops for good,
    // and every restart by the supervisor fails the same way.
    proxy
        .faults()
        .failMatching(
            ApiFaults.resource("pods").and(r -> r.method().equals("GET")),
            403,
            Duration.ofMinutes(1));
    replica = new Replica(KubeNamespace.through(proxy, admin), "a");
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
    proxy.faults().clear();
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
    replica = new Replica(KubeNamespace.through(proxy, admin), "a", broken);
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
    replica = new Replica(KubeNamespace.through(proxy, admin), "a");
    replica.watchers.startWatching();
    Wait.until("watching", replica::watching);
    replica.watchers.coalescer().close();
    String p = replica.watchers.problem();
    assertTrue(p != null && p.contains("coalescer is closed"), p);
  }
}
