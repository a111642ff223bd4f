package dev.tandem.devstack.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.faults.ApiFaults;
import dev.tandem.workflows.schedule.Placement;
import dev.tandem.workflows.schedule.PlacementRequest;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * placePod: the slurmd pod's node, the bind, the condition as one strategic merge patch carrying
 * the uid, and the event, against the local API.
 */
class PodPlacementActivitiesTest extends SchedulingApiBase {
  private static final Map<String, String> SLURMD = Map.of("tandem.dev/nodeset", "gpu-a");
  private static final Instant AT = Instant.parse("2026-01-01T00:00:07Z");

  /** A Running slurmd pod for Slurm node {@code slurmNode} on Kubernetes node {@code k8s}. */
  private static void slurmd(String slurmNode, String k8s) {
    createPod(other, slurmNode, SLURMD);
    bindRaw(other, slurmNode, k8s);
    markRunning(other, slurmNode, true);
  }

  private static PlacementRequest request(Pod p, String slurmNode) {
    return new PlacementRequest(
        ns, p.getMetadata().getName(), p.getMetadata().getUid(), 4711L, slurmNode, AT);
  }

  private static PodCondition condition(String name, String type) {
    return get(ns, name).getStatus().getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst()
        .orElse(null);
  }

  /** Every GET of pod {@code name} fails with 500 for a minute: a read of it shows. */
  private static ApiFaults.Fault failReadsOf(String name) {
    return proxy
        .faults()
        .failMatching(
            r -> "GET".equals(r.method()) && "pods".equals(r.resource()) && name.equals(r.name()),
            500,
            Duration.ofMinutes(1));
  }

  @Test
  void bindsWhereTheSlurmNodeRunsAndMarksThePodWithoutReadingIt() {
    String slurmNode = uniqueName("slurm");
    slurmd(slurmNode, n7);
    Pod p = createPod(ns, uniqueName("place"), Map.of());
    String name = p.getMetadata().getName();
    ApiFaults.Fault reads = failReadsOf(name);
    Placement pl;
    try {
      pl = activities.placePod(request(p, slurmNode));
      assertEquals(0, reads.hits(), "the placed pod is never read when all goes well");
    } finally {
      reads.cancel();
    }
    assertEquals(n7, pl.k8sNode());
    assertEquals(n7, pl.pod().k8sNode());
    Pod after = get(ns, name);
    assertEquals(n7, after.getSpec().getNodeName());
    assertEquals("4711", after.getMetadata().getAnnotations().get("tandem.dev/job-id"));
    assertEquals(slurmNode, after.getMetadata().getAnnotations().get("tandem.dev/slurm-node"));
    PodCondition c = condition(name, "SlurmScheduled");
    assertEquals("True", c.getStatus());
    assertEquals("JobRunning", c.getReason());
    assertEquals(
        "Slurm job 4711 on Slurm node " + slurmNode + " (Kubernetes node " + n7 + ")",
        c.getMessage());
    assertEquals(AT.toString(), c.getLastTransitionTime());
    assertNotNull(condition(name, "PodScheduled"), "the API server's condition stays");
    List<Event> events = client.v1().events().inNamespace(ns).list().getItems();
    assertTrue(
        events.stream()
            .anyMatch(
                e ->
                    p.getMetadata().getUid().equals(e.getInvolvedObject().getUid())
                        && "Scheduled".equals(e.getReason())
                        && e.getMessage()
                            .equals(
                                "Bound to " + n7 + ": Slurm job 4711 on Slurm node " + slurmNode)),
        events.toString());
  }

  @Test
  void aRetryFindsThePodBoundAndKeepsTheOtherConditions() {
    String slurmNode = uniqueName("slurm");
    slurmd(slurmNode, n7);
    Pod p = createPod(ns, uniqueName("again"), Map.of());
    String name = p.getMetadata().getName();
    activities.placePod(request(p, slurmNode));
    markRunning(ns, name, true); // the kubelet's Ready=True
    Placement again = activities.placePod(request(p, slurmNode));
    assertEquals(n7, again.pod().k8sNode());
    assertEquals("True", condition(name, "Ready").getStatus());
    assertEquals("True", condition(name, "SlurmScheduled").getStatus());
    assertEquals(
        1,
        get(ns, name).getStatus().getConditions().stream()
            .filter(x -> "SlurmScheduled".equals(x.getType()))
            .count());
  }

  @Test
  void noSlurmdPodBindsNothing() {
    Pod p = createPod(ns, uniqueName("nomap"), Map.of());
    Placement pl = activities.placePod(request(p, uniqueName("no-slurmd")));
    assertNull(pl.k8sNode());
    assertNull(pl.pod());
    assertNull(get(ns, p.getMetadata().getName()).getSpec().getNodeName());
  }

  @Test
  void aPodRecreatedUnderTheNameIsNeitherBoundNorWritten() {
    String slurmNode = uniqueName("slurm");
    slurmd(slurmNode, n7);
    Pod p = createPod(ns, uniqueName("recreated"), Map.of());
    String name = p.getMetadata().getName();
    PlacementRequest stale = new PlacementRequest(ns, name, "the-old-uid", 4711L, slurmNode, AT);
    Placement pl = activities.placePod(stale);
    assertEquals(n7, pl.k8sNode());
    assertFalse(pl.pod().exists());
    Pod after = get(ns, name);
    assertNull(after.getSpec().getNodeName());
    assertTrue(
        after.getStatus() == null
            || after.getStatus().getConditions() == null
            || condition(name, "SlurmScheduled") == null);
  }
}
