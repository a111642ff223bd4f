package dev.tandem.devstack.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.workflows.activities.KubeActivities;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.schedule.BindRequest;
import io.fabric8.kubernetes.api.model.Pod;
import io.temporal.failure.ApplicationFailure;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** bindPod through the Binding API: annotations, uid precondition, idempotence, refusals. */
class PodBindingActivitiesTest extends SchedulingApiBase {

  private static BindRequest request(Pod p, String node) {
    return new BindRequest(
        ns, p.getMetadata().getName(), p.getMetadata().getUid(), node, 4711L, "slurm-3");
  }

  @Test
  void bindsWithTheJobAnnotationsAndIsIdempotent() {
    Pod p = createPod(ns, uniqueName("bind"), Map.of());
    PodView v = activities.bindPod(request(p, n1));
    assertTrue(v.exists());
    assertEquals(n1, v.k8sNode());
    Pod after = get(ns, p.getMetadata().getName());
    assertEquals(n1, after.getSpec().getNodeName());
    assertEquals("4711", after.getMetadata().getAnnotations().get("tandem.dev/job-id"));
    assertEquals("slurm-3", after.getMetadata().getAnnotations().get("tandem.dev/slurm-node"));
    assertTrue(
        after.getStatus().getConditions().stream()
            .anyMatch(c -> "PodScheduled".equals(c.getType()) && "True".equals(c.getStatus())));

    // A retry after a lost answer: same node = success, nothing else changes.
    PodView again = activities.bindPod(request(p, n1));
    assertEquals(n1, again.k8sNode());
    assertEquals(
        after.getMetadata().getResourceVersion(),
        get(ns, p.getMetadata().getName()).getMetadata().getResourceVersion());
  }

  @Test
  void alreadyOnTheNodeWithoutAnnotationsGetsThem() {
    Pod p = createPod(ns, uniqueName("bound"), Map.of());
    bindRaw(ns, p.getMetadata().getName(), n1);
    PodView v = activities.bindPod(request(p, n1));
    assertEquals(n1, v.k8sNode());
    Map<String, String> ann = get(ns, p.getMetadata().getName()).getMetadata().getAnnotations();
    assertEquals("4711", ann.get("tandem.dev/job-id"));
    assertEquals("slurm-3", ann.get("tandem.dev/slurm-node"));
  }

  @Test
  void boundElsewhereIsRejectedForGood() {
    Pod p = createPod(ns, uniqueName("elsewhere"), Map.of());
    bindRaw(ns, p.getMetadata().getName(), n2);
    ApplicationFailure f =
        assertThrows(ApplicationFailure.class, () -> activities.bindPod(request(p, n1)));
    assertEquals(KubeActivities.REJECTED, f.getType());
    assertTrue(f.isNonRetryable());
    assertTrue(f.getOriginalMessage().contains("already bound to node " + n2), f.getMessage());
    assertEquals(n2, get(ns, p.getMetadata().getName()).getSpec().getNodeName());
  }

  @Test
  void anotherUidOrNoPodIsAbsentAndNothingIsBound() {
    Pod p = createPod(ns, uniqueName("uid"), Map.of());
    BindRequest stale =
        new BindRequest(ns, p.getMetadata().getName(), "not-the-uid", n1, 1L, "slurm-1");
    assertFalse(activities.bindPod(stale).exists());
    assertNull(get(ns, p.getMetadata().getName()).getSpec().getNodeName());

    BindRequest none = new BindRequest(ns, "no-such-pod", "u", n1, 1L, "slurm-1");
    assertFalse(activities.bindPod(none).exists());
  }

  @Test
  void getPodReadsThePodOrAbsent() {
    Pod p = createPod(ns, uniqueName("get"), Map.of());
    PodView v = activities.getPod(ns, p.getMetadata().getName());
    assertTrue(v.exists());
    assertEquals(p.getMetadata().getUid(), v.uid());
    assertFalse(activities.getPod(ns, "no-such-pod").exists());
  }

  @Test
  void aBindTheApiServerAcceptsCostsNoRead() {
    Pod p = createPod(ns, uniqueName("one"), Map.of());
    var reads = failPodReads();
    try {
      PodView v = activities.bindPod(request(p, n1));
      assertEquals(n1, v.k8sNode());
      assertTrue(v.exists());
      assertFalse(v.terminating());
      assertEquals(0, reads.hits());
    } finally {
      reads.cancel();
    }
    assertEquals(
        "4711",
        get(ns, p.getMetadata().getName()).getMetadata().getAnnotations().get("tandem.dev/job-id"));
  }

  @Test
  void aPodBeingDeletedIsReturnedAsItIsAndNotBound() {
    Pod p = createPod(ns, uniqueName("going"), Map.of());
    String name = p.getMetadata().getName();
    client
        .pods()
        .inNamespace(ns)
        .withName(name)
        .edit(
            x -> {
              x.getMetadata().setFinalizers(java.util.List.of("example.com/hold"));
              return x;
            });
    client.pods().inNamespace(ns).withName(name).delete();
    PodView v = activities.bindPod(request(p, n1));
    assertTrue(v.exists());
    assertTrue(v.terminating());
    assertNull(get(ns, name).getSpec().getNodeName());
    client
        .pods()
        .inNamespace(ns)
        .withName(name)
        .edit(
            x -> {
              x.getMetadata().setFinalizers(java.util.List.of());
              return x;
            });
  }
}
