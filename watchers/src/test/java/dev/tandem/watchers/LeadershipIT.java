package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.faults.ApiFaults;
import dev.tandem.devstack.faults.KubeApiProxy;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Leader election through a fault proxy in front of the real API server (lease 6 s, renew deadline
 * 3 s, retry 0.5 s): a leader that loses the API for longer than the renew deadline stops watching
 * and leads again once the API is back; another replica takes over from one that lost its access;
 * neither a malformed Lease nor a renewal that hangs stops the election or keeps a stale leader.
 */
@ExtendWith(KubeNamespace.class)
class LeadershipIT {
  private static final Duration LIMIT = Duration.ofSeconds(30);
  static KubernetesClient admin;

  private KubeApiProxy proxy;
  private final List<Replica> replicas = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    proxy = KubeNamespace.proxy();
  }

  @AfterEach
  void stop() {
    proxy.faults().clear();
    replicas.forEach(Replica::close);
    proxy.close();
  }

  private Replica replica(String id) {
    Replica r = new Replica(KubeNamespace.through(proxy, admin), id);
    replicas.add(r);
    r.watchers.startWithLeaderElection();
    return r;
  }

  @Test
  void aLeaderCutOffLongerThanTheRenewDeadlineStopsAndLeadsAgainWhenTheApiIsBack()
      throws Exception {
    Replica a = replica("a");
    Wait.until("a watches", LIMIT, a::watching);
    assertEquals(1.0, a.leaderGauge());

    proxy.faults().failAll(503, Duration.ofMinutes(2));
    Wait.until("a stops watching", LIMIT, () -> !a.watchers.leading());
    assertEquals(0.0, a.leaderGauge());
    assertEquals(1.0, a.counter("tandem.watchers.leadership.lost", "reason", "lost"));
    assertNull(a.watchers.pods(), "the watchers are closed");
    assertNull(a.watchers.problem(), "a follower with a live election loop is healthy");
    Thread.sleep(2000);
    assertFalse(a.watchers.leading(), "no lease, no watching, while the API fails");

    proxy.faults().clear();
    Wait.until("a leads and watches again", LIMIT, a::watching);
    assertEquals(1.0, a.leaderGauge());
    assertEquals(2.0, a.registry.get("tandem.watchers.leadership.acquired").counter().count());
    // The new term really watches: a new slurmd pod reaches its node workflow.
    admin.pods().resource(K8sObjects.slurmdPod("gpu-0", null).build()).create();
    Wait.until(
        "podObserved from the new term",
        LIMIT,
        () ->
            !a.signals
                .matching(s -> s.target().equals("node/" + admin.getNamespace() + "/gpu-0"))
                .isEmpty());
    assertNull(a.watchers.problem());
  }

  @Test
  void anotherReplicaTakesOverFromALeaderThatLostItsApiAccess() throws Exception {
    Replica a = replica("a");
    Wait.until("a watches", LIMIT, a::watching);
    Replica b = replica("b");
    AtomicBoolean watching = new AtomicBoolean(true);
    AtomicInteger overlaps = new AtomicInteger();
    Thread monitor =
        new Thread(
            () -> {
              long end = System.nanoTime() + Duration.ofMinutes(2).toNanos();
              while (watching.get() && System.nanoTime() < end) {
                if (a.watchers.leading() && b.watchers.leading()) {
                  overlaps.incrementAndGet();
                }
                try {
                  Thread.sleep(10);
                } catch (InterruptedException e) {
                  return;
                }
              }
            });
    monitor.start();
    try {
      Thread.sleep(2000);
      assertFalse(b.watchers.leading(), "b waits while a renews");

      proxy
          .faults()
          .failMatching(ApiFaults.userAgent("tandem-replica-a"), 503, Duration.ofMinutes(2));
      Wait.until("b takes over", LIMIT, b::watching);
      assertFalse(a.watchers.leading());
      assertEquals(1.0, a.counter("tandem.watchers.leadership.lost", "reason", "lost"));

      proxy.faults().clear();
      Thread.sleep(3000);
      assertTrue(b.watchers.leading(), "b keeps the lease it renews");
      assertFalse(a.watchers.leading(), "a competes again but b holds the lease");
    } finally {
      watching.set(false);
      monitor.join(5000);
    }
    assertEquals(0, overlaps.get(), "never two replicas watching at once");
  }

  /** A Lease without times or duration (client-go reads that as expired) must not end the loop. */
  @Test
  void aMalformedLeaseIsTakenOverNotFatal() {
    admin
        .leases()
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName("tandem-watchers")
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("a-replica-long-gone")
                .endSpec()
                .build())
        .create();
    Replica a = replica("a");
    Wait.until("a leads", LIMIT, a::watching);
    assertEquals(
        "replica-a",
        admin.leases().withName("tandem-watchers").get().getSpec().getHolderIdentity());
  }

  /**
   * A renewal that hangs: fabric8 checks the deadline only between calls, so without the watchdog
   * the leader would keep watching for as long as the call hangs, past the lease duration.
   */
  @Test
  void aLeaderWhoseRenewalHangsStopsAtTheRenewDeadline() throws Exception {
    Replica a = replica("a");
    Wait.until("a watches", LIMIT, a::watching);
    Duration hang = Duration.ofSeconds(9);
    proxy
        .faults()
        .delayMatching(
            ApiFaults.userAgent("tandem-replica-a").and(ApiFaults.resource("leases")),
            hang,
            Duration.ofMinutes(2));
    long t0 = System.nanoTime();
    Wait.until("a stops watching", LIMIT, () -> !a.watchers.leading());
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    assertTrue(
        took.compareTo(Replica.LEASE) < 0,
        "stopped after " + took + ", before the lease (" + Replica.LEASE + ") could be taken");
    proxy.faults().clear();
    Wait.until("a leads again", Duration.ofSeconds(60), a::watching);
  }
}
