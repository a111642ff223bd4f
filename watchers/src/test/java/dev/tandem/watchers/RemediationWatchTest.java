package dev.tandem.watchers;

import static dev.tandem.watchers.RemediationTriggersTest.cond;
import static dev.tandem.watchers.RemediationTriggersTest.node;
import static dev.tandem.watchers.RemediationTriggersTest.slurm;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodeSetRef;
import dev.tandem.workflows.remediation.RemediationPolicy;
import dev.tandem.workflows.remediation.RemediationStep;
import dev.tandem.workflows.remediation.RemediationTrigger;
import dev.tandem.workflows.remediation.TriggerKind;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RemediationWatch}: each trouble is sent once, again only after it cleared; undelivered
 * triggers are sent again; old trouble of a node whose remediation ended Failed is held back;
 * rechecks follow health changes, not heartbeats.
 */
class RemediationWatchTest extends WatcherTestBase {
  private static final NodeSetRef GPU = new NodeSetRef("default", "gpu");
  private final Map<NodeSetRef, RemediationPolicy> policies = new ConcurrentHashMap<>();
  private final Map<String, Node> nodes = new ConcurrentHashMap<>();
  private List<Pod> pods;
  private RemediationWatch watch;

  @BeforeEach
  void wire() {
    pods =
        List.of(
            K8sObjects.in("default", K8sObjects.slurmdPod("gpu-0", "k1").build()),
            K8sObjects.in("default", K8sObjects.slurmdPod("gpu-1", "k1").build()),
            K8sObjects.in("default", K8sObjects.slurmdPod("gpu-2", "k2").build()));
    policies.put(GPU, RemediationPolicy.defaults());
    watch = newWatch(Duration.ofMinutes(10));
  }

  private RemediationWatch newWatch(Duration redeliverAfter) {
    RemediationWatch w =
        new RemediationWatch(
            n -> pods.stream().filter(p -> n.equals(p.getSpec().getNodeName())).toList(),
            () -> pods,
            policies::get,
            coalescer,
            signals,
            metrics,
            redeliverAfter);
    w.lookups(nodes::get, name -> null);
    return w;
  }

  private void observe(Node n) {
    nodes.put(n.getMetadata().getName(), n);
    watch.nodeObserved(n, true);
  }

  private List<RemediationTrigger> triggers(String k8sNode) {
    return signals
        .matching(
            s ->
                s.signal().equals(Names.SIGNAL_TRIGGER)
                    && s.target().equals(Names.remediationWorkflowId(k8sNode)))
        .stream()
        .map(s -> (RemediationTrigger) s.payload())
        .toList();
  }

  private void settle() throws InterruptedException {
    coalescer.drain(Duration.ofSeconds(10));
  }

  @Test
  void troubleIsSentOnceAndAgainOnlyAfterItCleared() throws Exception {
    observe(node("k1", cond("Ready", "True", "ok"), cond("GpuUnhealthy", "True", "Xid 79")));
    settle();
    assertEquals(
        List.of(
            RemediationTrigger.of(
                TriggerKind.CONDITION, "GpuUnhealthy=True: Xid 79", "node-watcher")),
        triggers("k1"));

    // The same trouble with a new message, and a resync: nothing new.
    observe(node("k1", cond("Ready", "True", "ok"), cond("GpuUnhealthy", "True", "Xid 79 x2")));
    observe(node("k1", cond("Ready", "True", "ok"), cond("GpuUnhealthy", "True", "Xid 79 x2")));
    settle();
    assertEquals(1, triggers("k1").size());

    // Cleared, then back: a new trigger.
    observe(node("k1", cond("Ready", "True", "ok"), cond("GpuUnhealthy", "False", "ok")));
    observe(node("k1", cond("Ready", "True", "ok"), cond("GpuUnhealthy", "True", "Xid 48")));
    settle();
    assertEquals(2, triggers("k1").size());
    assertEquals("Condition: GpuUnhealthy=True: Xid 48", triggers("k1").get(1).cause());
  }

  @Test
  void aNodeWithoutAnEnabledPolicyTriggersNothingUntilItsPolicyTurnsOn() throws Exception {
    policies.put(GPU, RemediationPolicy.disabled());
    observe(node("k1", cond("Ready", "False", "kubelet down")));
    observe(node("k3", cond("Ready", "False", "no slurmd pods here")));
    settle();
    assertEquals(List.of(), signals.named(Names.SIGNAL_TRIGGER));

    policies.put(GPU, RemediationPolicy.defaults());
    watch.policyChanged(GPU);
    settle();
    assertEquals(
        List.of(
            RemediationTrigger.of(
                TriggerKind.NOT_READY, "Ready=False: kubelet down", "node-watcher")),
        triggers("k1"));
    assertEquals(List.of(), triggers("k3"));
  }

  @Test
  void oldTroubleOfANodeWhoseRemediationEndedFailedIsHeldUntilItClearsAndReturns()
      throws Exception {
    signals.remediationsEnded.put("k1", RemediationStep.FAILED);
    signals.remediationsEnded.put("k2", RemediationStep.RECOVERED);
    Node broken = node("k1", cond("GpuUnhealthy", "True", "Xid 79"));
    observe(broken);
    observe(node("k2", cond("GpuUnhealthy", "True", "Xid 31")));
    settle();
    assertEquals(List.of(), triggers("k1"), "held: its remediation ended Failed");
    assertEquals(1, triggers("k2").size(), "a recovered node broke again");
    observe(broken);
    settle();
    assertEquals(List.of(), triggers("k1"), "still held on the next look");

    observe(node("k1", cond("GpuUnhealthy", "False", "repaired")));
    observe(broken);
    settle();
    assertEquals(1, triggers("k1").size(), "trouble that came back while watching is new");
  }

  @Test
  void anUndeliveredTriggerIsSentAgainByTheNextLookAndAfterTheRedeliveryDelay() throws Exception {
    Node bad = node("k1", cond("KernelDeadlock", "True", "task hung"));
    signals.fail = true;
    observe(bad);
    Wait.until("given up", () -> dropped() >= 1);
    settle();
    signals.fail = false;
    // Resyncs (each one look) until it lands: the give-up callback may still be running.
    Wait.until(
        "sent by a later look",
        () -> {
          observe(bad);
          try {
            settle();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
          return !triggers("k1").isEmpty();
        });
    assertEquals(1, triggers("k1").size());

    // The same through the redelivery delay alone (no further observation).
    coalescer.close();
    coalescer = new Coalescer(2, Duration.ofMillis(20), metrics);
    watch = newWatch(Duration.ofMillis(200));
    signals.clear();
    signals.fail = true;
    watch.nodeObserved(bad, true);
    Wait.until("given up again", () -> dropped() >= 2);
    signals.fail = false;
    Wait.until("redelivered", () -> triggers("k1").size() == 1);
  }

  @Test
  void aHealthChangeSendsARecheckAndAHeartbeatDoesNot() throws Exception {
    policies.put(GPU, RemediationPolicy.disabled()); // an operator's remediation is rechecked too
    observe(node("k1", cond("Ready", "False", "a")));
    observe(node("k1", cond("Ready", "False", "b")));
    settle();
    assertEquals(List.of(), signals.named(Names.SIGNAL_RECHECK));
    observe(node("k1", cond("Ready", "True", "b")));
    settle();
    assertEquals(1, signals.named(Names.SIGNAL_RECHECK).size());
    assertEquals("remediation/k1", signals.named(Names.SIGNAL_RECHECK).get(0).target());
    assertEquals(null, signals.named(Names.SIGNAL_RECHECK).get(0).payload());
  }

  @Test
  void aReEvaluationThatReadsANewerNodeDoesNotSwallowTheRecheckOfItsEvent() throws Exception {
    watch.nodeObserved(node("k1", cond("Ready", "True", "ok")), true);
    // A pod change re-evaluates k1 from the cache, which already holds the newer object ...
    watch.nodeObserved(node("k1", cond("Ready", "False", "kubelet down")), false);
    // ... before the informer delivers that object's update event.
    watch.nodeObserved(node("k1", cond("Ready", "False", "kubelet down")), true);
    settle();
    assertEquals(1, signals.named(Names.SIGNAL_RECHECK).size());
  }

  @Test
  void aSlurmHardwareReasonTriggersOnItsPodsNodeOncePerReasonAndLaterChangesRecheck()
      throws Exception {
    var down = slurm("gpu-2", "down", Set.of(), "Not responding");
    watch.slurmObserved(down, "k2", true);
    watch.slurmObserved(down, "k2", true); // the next poll, a full resync
    settle();
    assertEquals(
        List.of(
            RemediationTrigger.of(
                TriggerKind.SLURM_REASON, "gpu-2 down: Not responding", "slurm-watcher")),
        triggers("k2"));
    // A remediation is known to run on k2 now: a later change of its Slurm node rechecks.
    signals.clear();
    watch.slurmObserved(slurm("gpu-2", "idle", Set.of("DRAIN"), "Kill task failed"), "k2", true);
    settle();
    assertEquals(1, triggers("k2").size(), "another reason: another trigger");
    assertEquals(1, signals.named(Names.SIGNAL_RECHECK).size());

    // An administrator's drain that is not hardware, or Tandem's own: nothing.
    signals.clear();
    watch.slurmObserved(slurm("gpu-0", "idle", Set.of("DRAIN"), "maintenance"), "k1", true);
    watch.slurmObserved(
        slurm("gpu-1", "idle", Set.of("DRAIN"), "tandem:remediation: Not responding"), "k1", true);
    settle();
    assertEquals(List.of(), signals.named(Names.SIGNAL_TRIGGER));
  }
}
