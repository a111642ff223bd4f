package dev.tandem.watchers;

import static dev.tandem.watchers.NodeSetDemandsTest.view;
import static dev.tandem.watchers.NodeSetDemandsTest.waiting;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNode;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeSetDemand;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.model.NodeSetSpecView;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * When the demand feed signals an autoscaled NodeSet: with hand-built views, recorded signals and
 * the coalescer, no Kubernetes; the last test goes through the job tracker and a fake Slurm.
 */
class DemandFeedTest extends WatcherTestBase {
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private final NodeSetRef a = new NodeSetRef("ml", "gpu-a");
  private final NodeSetRef b = new NodeSetRef("ml", "gpu-b");
  private final Map<NodeSetRef, NodeSetSpecView> autoscaled = new ConcurrentHashMap<>();
  private final DemandFeed feed =
      new DemandFeed(() -> Map.copyOf(autoscaled), coalescer, signals, metrics);

  private static final NodeSetSpecView GPU = view(List.of("gpu"), List.of(), null, 8);

  /** One poll; {@code listed} null: an unchanged listing. */
  private void poll(List<SlurmJob> listed, boolean full, long secondsAfterT0) throws Exception {
    pollAt(listed, full, secondsAfterT0 * 1000);
  }

  private List<NodeSetDemand> sentTo(NodeSetRef ref) {
    return signals
        .matching(s -> s.target().equals(ref.workflowId()) && s.signal().equals("demandObserved"))
        .stream()
        .map(s -> (NodeSetDemand) s.payload())
        .toList();
  }

  private double counted(String outcome) {
    var c =
        registry
            .find("tandem.signals")
            .tag("signal", Names.SIGNAL_DEMAND_OBSERVED)
            .tag("outcome", outcome)
            .counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void aDemandIsSentWhenItChangesAndOnEveryFullListingOnly() throws Exception {
    autoscaled.put(a, GPU);
    poll(null, false, 0);
    assertEquals(List.of(), sentTo(a), "nothing before the first listing: unknown is not idle");

    poll(List.of(), false, 1);
    assertEquals(List.of(new NodeSetDemand(0, 0, 0, 0, T0.plusSeconds(1))), sentTo(a));
    poll(null, false, 2);
    poll(List.of(waiting(1, "cpu", 3, null, null)), false, 3); // changed, not for this NodeSet
    assertEquals(1, sentTo(a).size(), "no demand: one signal, then nothing until it changes");

    List<SlurmJob> two = List.of(waiting(2, "gpu", 2, null, null));
    poll(two, false, 4);
    poll(two, false, 5); // another listing, same demand: observedAt alone does not count
    poll(null, false, 6);
    assertEquals(2, sentTo(a).size());
    assertEquals(new NodeSetDemand(2, 1, 0, 0, T0.plusSeconds(4)), sentTo(a).get(1));

    poll(two, true, 60);
    assertEquals(3, sentTo(a).size(), "a full listing sends it again: a lost one is repaired");
    assertEquals(new NodeSetDemand(2, 1, 0, 0, T0.plusSeconds(60)), sentTo(a).get(2));
    assertEquals(3, counted("sent"));
  }

  @Test
  void aNodeSetThatBecomesAutoscaledOrChangesShapeHearsAtTheNextPollWithoutANewListing()
      throws Exception {
    autoscaled.put(a, GPU);
    List<SlurmJob> jobs =
        List.of(waiting(1, "gpu", 6, null, null), waiting(2, "tpu", 1, null, null));
    poll(jobs, false, 0);
    assertEquals(1, sentTo(a).size());

    autoscaled.put(b, view(List.of("tpu"), List.of(), null, 8));
    poll(null, false, 1);
    assertEquals(List.of(new NodeSetDemand(1, 1, 0, 0, T0.plusSeconds(1))), sentTo(b));
    assertEquals(1, sentTo(a).size(), "the others' inputs did not change");

    autoscaled.put(a, view(List.of("gpu"), List.of("ib"), null, 8)); // same demand
    poll(null, false, 2);
    assertEquals(1, sentTo(a).size());
    autoscaled.put(a, view(List.of("gpu"), List.of("ib"), null, 4)); // the job no longer fits
    poll(null, false, 3);
    assertEquals(new NodeSetDemand(0, 0, 0, 1, T0.plusSeconds(3)), sentTo(a).get(1));
    poll(null, false, 4);
    assertEquals(2, sentTo(a).size());
    assertEquals(1, sentTo(b).size());
  }

  @Test
  void aBusyQueueSendsANodeSetAtMostOneDemandPerGap() throws Exception {
    autoscaled.put(a, GPU);
    List<SlurmJob> one = List.of(waiting(1, "gpu", 1, null, null));
    List<SlurmJob> two =
        List.of(waiting(1, "gpu", 1, null, null), waiting(2, "gpu", 1, null, null));
    List<SlurmJob> three =
        List.of(
            waiting(1, "gpu", 1, null, null),
            waiting(2, "gpu", 1, null, null),
            waiting(3, "gpu", 1, null, null));
    pollAt(one, false, 0);
    pollAt(two, false, 250); // changes every 250 ms (pods waiting): held
    pollAt(three, false, 500);
    pollAt(null, false, 1750);
    assertEquals(List.of(new NodeSetDemand(1, 1, 0, 0, T0)), sentTo(a));
    pollAt(null, false, 2000); // the gap has passed: the newest is sent
    assertEquals(new NodeSetDemand(3, 3, 0, 0, T0.plusMillis(2000)), sentTo(a).get(1));

    pollAt(one, false, 2250); // held...
    pollAt(List.copyOf(three), false, 2500); // ...and back to what was sent: nothing to send
    pollAt(null, false, 4500);
    assertEquals(2, sentTo(a).size());

    pollAt(two, false, 4750); // quiet for more than the gap: at once
    assertEquals(new NodeSetDemand(2, 2, 0, 0, T0.plusMillis(4750)), sentTo(a).get(2));
    pollAt(one, true, 5000); // a full listing is not held
    assertEquals(new NodeSetDemand(1, 1, 0, 0, T0.plusMillis(5000)), sentTo(a).get(3));
  }

  private void pollAt(List<SlurmJob> listed, boolean full, long millisAfterT0) throws Exception {
    feed.polled(listed, full, T0.plusMillis(millisAfterT0));
    assertTrue(coalescer.drain(Duration.ofSeconds(10)));
  }

  /** A registered Slurm node with {@code cpus} CPUs. */
  private static SlurmNode node(String name, int cpus) {
    return node(name, "idle", cpus);
  }

  private static SlurmNode node(String name, String state, int cpus) {
    return new SlurmNode(
        name,
        state,
        java.util.Set.of(),
        null,
        null,
        null,
        cpus,
        0,
        8000,
        "",
        "",
        List.of("gpu"),
        List.of(),
        "127.0.0.1",
        name,
        T0,
        T0,
        "22.05.8");
  }

  @Test
  void theCpusOfItsNodesInSlurmMakeAJobTooWideUnfitAndAreKeptAtZero() throws Exception {
    autoscaled.put(a, GPU);
    List<SlurmJob> wide =
        List.of(
            NodeSetDemandsTest.job(
                1,
                "gpu",
                "PENDING",
                "PartitionConfig",
                new SlurmJob.Request(1, 64, 0, null, null)));
    // A FUTURE node has not registered: slurm.conf's values, perhaps Slurm's defaults, not its.
    feed.nodesListed(List.of(node("gpu-a-0", "future", 1)));
    poll(wide, false, 0);
    assertEquals(
        new NodeSetDemand(1, 1, 0, 0, T0),
        sentTo(a).get(0),
        "no node seen yet: it may fit, one node is asked for");

    // A node of the NodeSet registered with 4 CPUs (another NodeSet's node, with more, is not it).
    feed.nodesListed(List.of(node("gpu-a-0", 4), node("gpu-ab-0", 128), node("n1", 128)));
    poll(null, false, 2);
    assertEquals(new NodeSetDemand(0, 0, 0, 1, T0.plusSeconds(2)), sentTo(a).get(1));

    // Back at zero (no node of it in Slurm), it still knows.
    feed.nodesListed(List.of(node("n1", 128)));
    poll(wide, true, 60);
    assertEquals(new NodeSetDemand(0, 0, 0, 1, T0.plusSeconds(60)), sentTo(a).get(2));

    // Nodes of a new template with more CPUs registered: the job fits again.
    feed.nodesListed(List.of(node("gpu-a-0", 4), node("gpu-a-1", 96)));
    poll(null, false, 62);
    assertEquals(new NodeSetDemand(1, 1, 0, 0, T0.plusSeconds(62)), sentTo(a).get(3));
  }

  @Test
  void aNodeSetNoLongerAutoscaledIsForgottenAndHearsAfreshWhenItIsAgain() throws Exception {
    autoscaled.put(a, GPU);
    List<SlurmJob> jobs = List.of(waiting(1, "gpu", 2, null, null));
    poll(jobs, false, 0);
    autoscaled.remove(a);
    poll(List.of(), false, 1);
    poll(jobs, false, 2);
    assertEquals(1, sentTo(a).size(), "not autoscaled: nothing");
    autoscaled.put(a, GPU);
    poll(null, false, 3);
    assertEquals(2, sentTo(a).size());
    assertEquals(new NodeSetDemand(2, 1, 0, 0, T0.plusSeconds(3)), sentTo(a).get(1));
  }

  @Test
  void aWorkflowThatDoesNotRunIsNotAskedAgainUntilItsSpecSignalStartedIt() throws Exception {
    autoscaled.put(a, GPU);
    signals.notRunning.add(a.workflowId());
    List<SlurmJob> jobs = List.of(waiting(1, "gpu", 2, null, null));
    poll(jobs, false, 0);
    poll(List.copyOf(jobs), false, 1);
    poll(null, false, 2);
    assertEquals(1, sentTo(a).size(), "one try, not one per poll");
    assertEquals(1, counted("not-running"));

    signals.notRunning.clear();
    feed.nodeSetRunning(a); // its spec signal was accepted: the workflow runs now
    poll(null, false, 3);
    assertEquals(2, sentTo(a).size());
    assertEquals(1, counted("sent"));
  }

  @Test
  void aSignalTheCoalescerGaveUpOnIsSentAgainWithTheNextChangedListing() throws Exception {
    autoscaled.put(a, GPU);
    List<SlurmJob> jobs = List.of(waiting(1, "gpu", 2, null, null));
    signals.fail = true;
    poll(jobs, false, 0);
    assertEquals(1, dropped());
    signals.fail = false;
    poll(null, false, 1);
    assertEquals(0, counted("sent"), "an unchanged listing computes nothing");
    poll(List.copyOf(jobs), false, 2);
    assertEquals(1, counted("sent"));
    assertEquals(
        new NodeSetDemand(2, 1, 0, 0, T0.plusSeconds(2)), sentTo(a).get(sentTo(a).size() - 1));
  }

  @Test
  void theJobTrackerFeedsEveryListingAndAFailingFeedIsNoFailedPoll() throws Exception {
    FakeSlurmClient slurm = new FakeSlurmClient();
    SlurmJobTracker tracker =
        new SlurmJobTracker(slurm, coalescer, signals, metrics, Duration.ofSeconds(10));
    tracker.demand(feed);
    autoscaled.put(a, GPU);
    slurm.putJob(waiting(1, "gpu", 3, null, null));
    tracker.poll(false, T0);
    assertTrue(coalescer.drain(Duration.ofSeconds(10)));
    assertEquals(List.of(new NodeSetDemand(3, 1, 0, 0, T0)), sentTo(a));

    autoscaled.put(b, GPU);
    tracker.poll(false, T0.plusSeconds(2)); // 304: b still hears, from the jobs kept
    assertTrue(coalescer.drain(Duration.ofSeconds(10)));
    assertTrue(slurm.unchangedJobAnswers.get() > 0, "the case under test: an unchanged listing");
    assertEquals(List.of(new NodeSetDemand(3, 1, 0, 0, T0.plusSeconds(2))), sentTo(b));

    slurm.removeJob(1);
    tracker.poll(false, T0.plusSeconds(4));
    assertTrue(coalescer.drain(Duration.ofSeconds(10)));
    tracker.poll(true, T0.plusSeconds(60));
    assertTrue(coalescer.drain(Duration.ofSeconds(10)));
    assertEquals(
        List.of(
            new NodeSetDemand(3, 1, 0, 0, T0),
            new NodeSetDemand(0, 0, 0, 0, T0.plusSeconds(4)),
            new NodeSetDemand(0, 0, 0, 0, T0.plusSeconds(60))),
        sentTo(a));

    DemandFeed broken =
        new DemandFeed(
            () -> {
              throw new IllegalStateException("no cache (test)");
            },
            coalescer,
            signals,
            metrics);
    tracker.demand(broken);
    slurm.putJob(waiting(2, "gpu", 1, null, null));
    assertDoesNotThrow(() -> tracker.poll(false, T0.plusSeconds(62)));
  }
}
