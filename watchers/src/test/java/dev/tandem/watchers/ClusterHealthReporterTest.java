package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.k8s.NodeSetResources;
import dev.tandem.workflows.model.ClusterHealth;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Slurm reachability reaches every known NodeSet workflow at once, and again periodically. */
@ExtendWith(KubeNamespace.class)
class ClusterHealthReporterTest extends WatcherTestBase {
  static KubernetesClient client;

  private static final Duration POLL = Duration.ofMillis(200);

  private final FakeSlurmClient slurm = new FakeSlurmClient();
  private NodeSetWatcher nodeSets;
  private PodWatcher pods;
  private SlurmPoller poller;
  private ClusterHealthReporter reporter;

  @BeforeEach
  void start() {
    create("a");
    create("b");
    nodeSets = nodeSetWatcher(client);
    nodeSets.start();
    Wait.until("NodeSets cached", () -> nodeSets.known().size() >= 2);
  }

  @AfterEach
  void stop() {
    if (poller != null) {
      poller.close();
    }
    if (pods != null) {
      pods.close();
    }
    if (reporter != null) {
      reporter.close();
    }
    nodeSets.close();
  }

  private static void create(String name) {
    NodeSetResources.generic(client)
        .resource(
            K8sObjects.nodeSet(
                name,
                "  replicas: 1\n  template:\n    spec:\n      containers:\n"
                    + "      - name: slurmd\n        image: x\n"))
        .create();
  }

  private void startReporter(Duration resend) {
    reporter =
        new ClusterHealthReporter(
            nodeSets::known,
            coalescer,
            signals,
            metrics,
            Clock.systemUTC(),
            null,
            Duration.ofSeconds(1),
            resend);
    nodeSets.onSpecSent(reporter::nodeSetRunning);
    reporter.start();
  }

  private boolean everyNodeSetSees(String component, boolean reachable) {
    for (String id :
        List.of(
            "nodeset/" + client.getNamespace() + "/a", "nodeset/" + client.getNamespace() + "/b")) {
      ClusterHealth h = signals.lastHealth(id, component);
      if (h == null || h.reachable() != reachable) {
        return false;
      }
    }
    return true;
  }

  @Test
  void aSlurmOutageAndItsEndReachEveryNodeSetWithinAPollInterval() {
    startReporter(Duration.ofHours(1));
    pods = podWatcher(client);
    pods.start();
    slurm.put("n1", "idle", Set.of(), null);
    poller = slurmPoller(client, slurm, pods, POLL, Duration.ofHours(1), Clock.systemUTC());
    poller.onReachability(reporter);
    poller.start();
    Wait.until("reachable at first", () -> everyNodeSetSees(ClusterHealth.SLURM, true));

    slurm.down = true;
    long t0 = System.nanoTime();
    Wait.until("unreachable everywhere", () -> everyNodeSetSees(ClusterHealth.SLURM, false));
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    // One poll interval plus the coalescer's hand-off; generous for a loaded machine.
    assertTrue(took.compareTo(POLL.plus(Duration.ofSeconds(5))) < 0, "took " + took);
    ClusterHealth down =
        signals.lastHealth("nodeset/" + client.getNamespace() + "/a", ClusterHealth.SLURM);
    assertTrue(down.message().contains("cannot reach slurmrestd"), down.message());
    assertTrue(!down.since().isAfter(down.observedAt()));

    slurm.down = false;
    Wait.until("reachable again", () -> everyNodeSetSees(ClusterHealth.SLURM, true));
    ClusterHealth up =
        signals.lastHealth("nodeset/" + client.getNamespace() + "/b", ClusterHealth.SLURM);
    assertTrue(up.since().isAfter(down.since()), "a new state began: " + up + " after " + down);
  }

  @Test
  void theCurrentViewIsSentAgainPeriodically() {
    startReporter(Duration.ofSeconds(1));
    reporter.observed(ClusterHealth.SLURM, false, "cannot reach slurmrestd: test");
    Wait.until("first report", () -> everyNodeSetSees(ClusterHealth.SLURM, false));
    ClusterHealth first =
        signals.lastHealth("nodeset/" + client.getNamespace() + "/a", ClusterHealth.SLURM);
    signals.clear();
    Wait.until(
        "two resends",
        () ->
            slurmHealthSentTo("nodeset/" + client.getNamespace() + "/a") >= 2
                && slurmHealthSentTo("nodeset/" + client.getNamespace() + "/b") >= 2);
    ClusterHealth again =
        signals.lastHealth("nodeset/" + client.getNamespace() + "/a", ClusterHealth.SLURM);
    assertEquals(first.since(), again.since(), "the same state, resent");
    assertTrue(!again.reachable());
  }

  /** Slurm health reports sent to one NodeSet (its spec signals go to the same workflow). */
  private long slurmHealthSentTo(String id) {
    return signals
        .matching(
            s ->
                s.target().equals(id)
                    && s.payload() instanceof ClusterHealth h
                    && h.component().equals(ClusterHealth.SLURM))
        .size();
  }

  @Test
  void aNodeSetWhoseWorkflowJustStartedGetsTheViewWithoutWaitingForTheResend() {
    startReporter(Duration.ofHours(1));
    reporter.observed(ClusterHealth.SLURM, false, "cannot reach slurmrestd: test");
    Wait.until("first report", () -> everyNodeSetSees(ClusterHealth.SLURM, false));
    create("c");
    Wait.until(
        "c told after its spec signal",
        () ->
            signals.lastHealth("nodeset/" + client.getNamespace() + "/c", ClusterHealth.SLURM)
                != null);
    List<String> order =
        signals.matching(s -> s.target().equals("nodeset/" + client.getNamespace() + "/c")).stream()
            .map(RecordingSignals.Sent::signal)
            .toList();
    assertEquals("specChanged", order.get(0), order.toString());
  }

  @Test
  void repeatedReportsOfTheSameStateSendNothingNew() throws Exception {
    startReporter(Duration.ofHours(1));
    reporter.observed(ClusterHealth.SLURM, true, "slurmrestd answers");
    Wait.until("first report", () -> everyNodeSetSees(ClusterHealth.SLURM, true));
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    int before = signals.all().size();
    for (int i = 0; i < 10; i++) {
      reporter.observed(ClusterHealth.SLURM, true, "slurmrestd answers");
    }
    assertTrue(coalescer.drain(Duration.ofSeconds(5)));
    assertEquals(before, signals.all().size());
  }
}
