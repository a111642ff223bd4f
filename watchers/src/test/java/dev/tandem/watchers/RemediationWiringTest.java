package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.remediation.RemediationPolicy;
import dev.tandem.workflows.remediation.RemediationTrigger;
import dev.tandem.workflows.remediation.TriggerKind;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The node watcher and the Slurm poller feed {@link RemediationWatch} as {@code Watching} wires
 * them, against the real API server: a policy condition set on a node's status, or a Slurm node of
 * a pod on it going DOWN for a hardware reason, triggers {@code remediation/<node>}.
 */
@ExtendWith(KubeNamespace.class)
class RemediationWiringTest extends WatcherTestBase {
  static KubernetesClient client;

  private final FakeSlurmClient slurm = new FakeSlurmClient();
  private final Map<NodeSetRef, RemediationPolicy> policies = new ConcurrentHashMap<>();
  private PodWatcher pods;
  private K8sNodeWatcher nodes;
  private SlurmPoller poller;

  @BeforeEach
  void start() {
    client.nodes().resource(K8sObjects.node("k1")).create();
    client.pods().resource(K8sObjects.slurmdPod("gpu-0", "k1").build()).create();
    pods = podWatcher(client);
    nodes = nodeWatcher(client, pods, Set.of(), RESYNC);
    poller =
        slurmPoller(
            client, slurm, pods, Duration.ofMillis(50), Duration.ofHours(1), Clock.systemUTC());
    RemediationWatch watch =
        new RemediationWatch(
            pods::podsOn,
            pods::all,
            policies::get,
            coalescer,
            signals,
            metrics,
            Duration.ofSeconds(30));
    watch.lookups(nodes::cached, poller::lastView);
    nodes.remediation(watch);
    poller.remediation(watch);
    pods.onPodChanged(
        p -> {
          nodes.podChanged(p);
          poller.podChanged(p);
        });
    policies.put(new NodeSetRef(client.getNamespace(), "gpu"), RemediationPolicy.defaults());
    pods.start();
    nodes.start();
    Wait.until("synced", () -> pods.synced() && nodes.synced() && pods.podsOn("k1").size() == 1);
  }

  @AfterEach
  void stop() {
    poller.close();
    nodes.close();
    pods.close();
  }

  private List<RemediationTrigger> triggers() {
    return signals
        .matching(
            s -> s.signal().equals(Names.SIGNAL_TRIGGER) && s.target().equals("remediation/k1"))
        .stream()
        .map(s -> (RemediationTrigger) s.payload())
        .toList();
  }

  @Test
  void aPolicyConditionOnTheNodeTriggersItsRemediation() {
    client
        .nodes()
        .withName("k1")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"},"
                + "{\"type\":\"GpuUnhealthy\",\"status\":\"True\",\"reason\":\"Xid\","
                + "\"message\":\"Xid 79 on GPU 3\"}]}}");
    Wait.until("trigger", () -> !triggers().isEmpty());
    assertEquals(
        RemediationTrigger.of(
            TriggerKind.CONDITION, "GpuUnhealthy=True: Xid 79 on GPU 3", "node-watcher"),
        triggers().get(0));
  }

  @Test
  void aSlurmNodeDownNotRespondingTriggersTheRemediationOfItsPodsNode() {
    slurm.put("gpu-0", "down", Set.of("NOT_RESPONDING"), "Not responding");
    poller.pollOnceSafely();
    Wait.until("trigger", () -> !triggers().isEmpty());
    assertEquals(
        RemediationTrigger.of(
            TriggerKind.SLURM_REASON, "gpu-0 down: Not responding", "slurm-watcher"),
        triggers().get(0));
    poller.pollOnceSafely(); // the same reason again: nothing new
    Wait.until("settled", () -> coalescer.backlog() == 0);
    assertEquals(1, triggers().size());
  }
}
