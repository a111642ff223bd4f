package dev.tandem.devstack.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** slurmNodeToK8sNode: the Running, not terminating slurmd pod named after the Slurm node. */
class SlurmNodeMappingTest extends SchedulingApiBase {
  private static final Map<String, String> SLURMD = Map.of("tandem.dev/nodeset", "gpu-a");

  @Test
  void runningSlurmdPodInAnyNamespaceGivesItsNode() {
    String name = uniqueName("slurm");
    createPod(other, name, SLURMD);
    bindRaw(other, name, n7);
    markRunning(other, name, true);
    assertEquals(n7, activities.slurmNodeToK8sNode(name));
  }

  @Test
  void pendingUnboundOrUnlabelledPodsGiveNothing() {
    String bound = uniqueName("slurm");
    createPod(other, bound, SLURMD);
    bindRaw(other, bound, n7);
    assertNull(activities.slurmNodeToK8sNode(bound), "bound but not Running yet");

    String unbound = uniqueName("slurm");
    createPod(ns, unbound, SLURMD);
    markRunning(ns, unbound, true);
    assertNull(activities.slurmNodeToK8sNode(unbound), "Running status but no node");

    String plain = uniqueName("slurm");
    createPod(ns, plain, Map.of("app", "x"));
    bindRaw(ns, plain, n7);
    markRunning(ns, plain, true);
    assertNull(activities.slurmNodeToK8sNode(plain), "not a slurmd pod");

    assertNull(activities.slurmNodeToK8sNode("no-such-node"));
  }

  @Test
  void terminatingSlurmdPodGivesNothing() {
    String name = uniqueName("slurm");
    createPod(ns, name, SLURMD);
    bindRaw(ns, name, n7);
    markRunning(ns, name, true);
    assertEquals(n7, activities.slurmNodeToK8sNode(name));
    // Bound pods stay (terminating) until their kubelet stops them; there is no kubelet here.
    client.pods().inNamespace(ns).withName(name).delete();
    assertNull(activities.slurmNodeToK8sNode(name));
  }

  @Test
  void aSlurmNodeMappedBeforeIsReadWhereItWasNotListed() {
    String name = uniqueName("slurm");
    createPod(other, name, SLURMD);
    bindRaw(other, name, n7);
    markRunning(other, name, true);
    assertEquals(n7, activities.slurmNodeToK8sNode(name));
    // Every pod LIST now fails: the second mapping must read the one pod it knows.
    var lists =
        proxy
            .faults()
            .failMatching(
                r -> "pods".equals(r.resource()) && r.name() == null && !r.watch(),
                500,
                Duration.ofMinutes(1));
    try {
      assertEquals(n7, activities.slurmNodeToK8sNode(name));
      assertEquals(0, lists.hits());
    } finally {
      lists.cancel();
    }
  }

  @Test
  void aSlurmNodeServedFromAnotherNamespaceNowIsFoundAgain() {
    String name = uniqueName("slurm");
    createPod(ns, name, SLURMD);
    bindRaw(ns, name, n7);
    markRunning(ns, name, true);
    assertEquals(n7, activities.slurmNodeToK8sNode(name));
    client.pods().inNamespace(ns).withName(name).delete(); // terminating: serves no more
    createPod(other, name, SLURMD);
    bindRaw(other, name, n8);
    markRunning(other, name, true);
    assertEquals(n8, activities.slurmNodeToK8sNode(name));
  }

  @Test
  void twoServingPodsOfOneSlurmNodeGiveNothing() {
    String name = uniqueName("slurm");
    for (String[] at : new String[][] {{ns, n7}, {other, n8}}) {
      createPod(at[0], name, SLURMD);
      bindRaw(at[0], name, at[1]);
      markRunning(at[0], name, true);
    }
    assertNull(activities.slurmNodeToK8sNode(name));
  }
}
