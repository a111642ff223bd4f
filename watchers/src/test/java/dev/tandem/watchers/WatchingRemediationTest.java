package dev.tandem.watchers;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.k8s.NodeSetResources;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.remediation.RemediationTrigger;
import dev.tandem.workflows.remediation.TriggerKind;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A leading replica's watchers as {@link Watching} wires them feed the remediation triggers: a
 * change of a node's Ready condition sends {@code recheck} to {@code remediation/<node>} (whatever
 * the policy: an operator's remediation runs without one), a heartbeat does not; a policy condition
 * on a node hosting a NodeSet with {@code spec.remediation} triggers its remediation.
 */
@ExtendWith(KubeNamespace.class)
class WatchingRemediationTest {
  static KubernetesClient client;

  private Replica replica;

  @BeforeEach
  void start() throws Exception {
    replica = new Replica(client.getConfiguration(), "a");
    replica.client.nodes().resource(K8sObjects.node("k1")).create();
    ready("True", "kubelet is posting ready status");
    replica.client.pods().resource(K8sObjects.slurmdPod("gpu-0", "k1").build()).create();
    replica.watchers.startWatching();
    Wait.until(
        "watching",
        () ->
            replica.watching()
                && replica.watchers.watching() != null
                && replica.watchers.watching().nodes.synced()
                && replica.watchers.pods().podsOn("k1").size() == 1);
  }

  @AfterEach
  void stop() {
    replica.close();
  }

  private void ready(String status, String message) {
    ready(status, message, "");
  }

  private void ready(String status, String message, String more) {
    replica
        .client
        .nodes()
        .withName("k1")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\""
                + status
                + "\",\"message\":\""
                + message
                + "\"}"
                + more
                + "]}}");
  }

  @Test
  void aPolicyConditionOnANodeOfANodeSetWithRemediationTriggersIt() {
    ready("True", "ok", ",{\"type\":\"GpuUnhealthy\",\"status\":\"True\",\"message\":\"Xid 79\"}");
    // The NodeSet comes after the node's trouble: its policy turning on looks at k1 again.
    NodeSetResources.generic(replica.client)
        .resource(
            K8sObjects.nodeSet(
                "gpu",
                "  replicas: 1\n  remediation: {}\n  template:\n    spec:\n      containers:\n"
                    + "      - name: slurmd\n        image: tandem/slurmd:22.05\n"))
        .create();
    Wait.until("trigger", () -> !replica.signals.named(Names.SIGNAL_TRIGGER).isEmpty());
    RecordingSignals.Sent t = replica.signals.named(Names.SIGNAL_TRIGGER).get(0);
    assertEquals("remediation/k1", t.target());
    assertEquals(
        RemediationTrigger.of(TriggerKind.CONDITION, "GpuUnhealthy=True: Xid 79", "node-watcher"),
        t.payload());
  }

  @Test
  void aReadyChangeRechecksTheNodesRemediation() throws Exception {
    ready("True", "heartbeat"); // same status, new message: nothing
    ready("False", "kubelet stopped posting node status");
    Wait.until("recheck", () -> !replica.signals.named(Names.SIGNAL_RECHECK).isEmpty());
    Thread.sleep(200);
    assertEquals(1, replica.signals.named(Names.SIGNAL_RECHECK).size());
    assertEquals("remediation/k1", replica.signals.named(Names.SIGNAL_RECHECK).get(0).target());
  }
}
