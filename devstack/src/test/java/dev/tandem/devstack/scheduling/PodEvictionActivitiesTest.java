package dev.tandem.devstack.scheduling;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.tandem.devstack.faults.ApiFaults;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.schedule.AnnounceRequest;
import dev.tandem.workflows.schedule.Announced;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** evictPod through the Eviction API, and the preemption-to-eviction histogram. */
class PodEvictionActivitiesTest extends SchedulingApiBase {
  private static final String METRIC = "tandem.preemption.to.eviction";

  /** A bound, Running, Ready pod carrying the placeholder job annotation. */
  private Pod runningPlacedPod(Map<String, String> labels, long jobId) {
    Pod p = createPod(ns, uniqueName("evict"), labels);
    String name = p.getMetadata().getName();
    client
        .pods()
        .inNamespace(ns)
        .withName(name)
        .edit(
            x -> {
              x.getMetadata().setAnnotations(Map.of("tandem.dev/job-id", Long.toString(jobId)));
              return x;
            });
    bindRaw(ns, name, n1);
    markRunning(ns, name, true);
    return get(ns, name);
  }

  private static SlurmJob job(long id, String state, Instant preemptTime) {
    return new SlurmJob(
        id,
        "tandem-pod-x",
        "tandem.dev/pod-uid=x",
        state,
        Set.of(),
        "None",
        "slurm-1",
        List.of("slurm-1"),
        "low",
        null,
        null,
        null,
        0,
        null,
        null,
        null,
        preemptTime,
        null,
        null,
        SlurmJob.Request.UNKNOWN);
  }

  private Timer timer() {
    return registry.find(METRIC).timer();
  }

  @Test
  void acceptedEvictionHonoursTheGracePeriodAndRecordsPreemptionDelay() {
    Pod p = runningPlacedPod(Map.of("app", "free"), 42L);
    when(slurm.getJob(42L)).thenReturn(job(42L, "PREEMPTED", NOW.minusSeconds(5)));
    PodView v =
        activities.evictPod(ns, p.getMetadata().getName(), p.getMetadata().getUid(), "preempted");
    // Bound pods stay until their kubelet stops them (none here): terminating, with the pod's
    // own 20 s grace period.
    assertTrue(v.exists() && v.terminating(), v.toString());
    Pod after = get(ns, p.getMetadata().getName());
    assertEquals(20L, after.getMetadata().getDeletionGracePeriodSeconds());
    assertTrue(
        after.getStatus().getConditions().stream()
            .anyMatch(c -> "DisruptionTarget".equals(c.getType())));
    assertEquals(1, timer().count());
    assertEquals(5.0, timer().totalTime(TimeUnit.SECONDS), 0.001);

    // Again: already terminating, not evicted or measured twice.
    activities.evictPod(ns, p.getMetadata().getName(), p.getMetadata().getUid(), "preempted");
    assertEquals(1, timer().count());
  }

  @Test
  void announceAndEvictTellsThePodWhyThenEvictsIt() {
    Pod p = runningPlacedPod(Map.of("app", "told"), 44L);
    String name = p.getMetadata().getName();
    String uid = p.getMetadata().getUid();
    when(slurm.getJob(44L)).thenReturn(job(44L, "PREEMPTED", NOW.minusSeconds(3)));
    Instant at = Instant.parse("2026-01-02T03:04:00Z");
    Announced a =
        activities.announceAndEvict(
            new AnnounceRequest(
                ns,
                name,
                uid,
                new Condition("SlurmPreempted", "True", "Preempted", "by job 9", at),
                EventRequest.pod(ns, name, uid, true, "SlurmPreempted", "by job 9")));
    assertTrue(a.pod().exists() && a.pod().terminating(), a.toString());
    Pod after = get(ns, name);
    assertNotNull(after.getMetadata().getDeletionTimestamp());
    PodCondition c =
        after.getStatus().getConditions().stream()
            .filter(x -> "SlurmPreempted".equals(x.getType()))
            .findFirst()
            .orElseThrow();
    assertEquals("True", c.getStatus());
    assertEquals("by job 9", c.getMessage());
    assertEquals(at.toString(), c.getLastTransitionTime());
    assertTrue(
        after.getStatus().getConditions().stream().anyMatch(x -> "Ready".equals(x.getType())),
        "the kubelet's conditions stay");
    assertTrue(
        client.v1().events().inNamespace(ns).list().getItems().stream()
            .anyMatch(
                e ->
                    uid.equals(e.getInvolvedObject().getUid())
                        && "SlurmPreempted".equals(e.getReason())
                        && "Warning".equals(e.getType())));
    assertEquals(1, timer().count());
  }

  @Test
  void announceAndEvictWhoseEvictionFailsIsStillAnnouncedAndAnswersNoPod() {
    Pod p = runningPlacedPod(Map.of("app", "failing"), 45L);
    String name = p.getMetadata().getName();
    String uid = p.getMetadata().getUid();
    ApiFaults.Fault down =
        proxy
            .faults()
            .failMatching(r -> "eviction".equals(r.subresource()), 503, Duration.ofMinutes(1));
    Announced a;
    try {
      a =
          activities.announceAndEvict(
              new AnnounceRequest(
                  ns,
                  name,
                  uid,
                  new Condition("SlurmJobEnded", "True", "JobFailed", "job 45 failed", NOW),
                  EventRequest.pod(ns, name, uid, true, "SlurmJobEnded", "job 45 failed")));
    } finally {
      down.cancel();
    }
    assertNull(a.pod(), "no answer: the workflow evicts again");
    assertTrue(
        get(ns, name).getStatus().getConditions().stream()
            .anyMatch(x -> "SlurmJobEnded".equals(x.getType())));
    assertNull(get(ns, name).getMetadata().getDeletionTimestamp());
  }

  @Test
  void budgetRefusalReturnsThePodAsItIsAndRecordsNothing() {
    Pod p = runningPlacedPod(Map.of("app", "guarded"), 43L);
    client
        .policy()
        .v1()
        .podDisruptionBudget()
        .inNamespace(ns)
        .resource(
            new PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withName("guarded")
                .endMetadata()
                .withNewSpec()
                .withMinAvailable(new IntOrString(1))
                .withNewSelector()
                .addToMatchLabels("app", "guarded")
                .endSelector()
                .endSpec()
                .build())
        .create();
    // The disruption controller computes the budget's status: until then the API server refuses
    // every eviction for another reason ("still being processed").
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                client
                    .policy()
                    .v1()
                    .podDisruptionBudget()
                    .inNamespace(ns)
                    .withName("guarded")
                    .get(),
            b ->
                b.getStatus() != null
                    && Objects.equals(
                        b.getStatus().getObservedGeneration(), b.getMetadata().getGeneration())
                    && b.getStatus().getCurrentHealthy() == 1
                    && b.getStatus().getDisruptionsAllowed() == 0);
    when(slurm.getJob(43L)).thenReturn(job(43L, "PREEMPTED", NOW.minusSeconds(5)));
    PodView v =
        activities.evictPod(ns, p.getMetadata().getName(), p.getMetadata().getUid(), "preempted");
    assertTrue(v.exists());
    assertFalse(v.terminating());
    assertNull(get(ns, p.getMetadata().getName()).getMetadata().getDeletionTimestamp());
    assertEquals(0, timer().count());
  }

  @Test
  void aRefusedEvictionIsAskedOnceNotRetriedInsideTheActivity() {
    Pod p = runningPlacedPod(Map.of("app", "free"), 47L);
    // fabric8 on its own retries a 429 ten times with backoff (about 25 s): the activity must
    // return the refusal at once and let the workflow try again later.
    ApiFaults.Fault f =
        proxy
            .faults()
            .failMatching(
                r -> "POST".equals(r.method()) && "eviction".equals(r.subresource()),
                429,
                Duration.ofMinutes(1));
    try {
      PodView v = activities.evictPod(ns, p.getMetadata().getName(), p.getMetadata().getUid(), "x");
      assertTrue(v.exists() && !v.terminating(), v.toString());
      assertEquals(1, f.hits());
    } finally {
      f.cancel();
    }
  }

  @Test
  void goneOrAnotherUidIsAbsentAndLeftAlone() {
    assertFalse(activities.evictPod(ns, "no-such-pod", "u", "preempted").exists());
    Pod p = runningPlacedPod(Map.of("app", "free"), 44L);
    PodView v = activities.evictPod(ns, p.getMetadata().getName(), "other-uid", "preempted");
    assertFalse(v.exists());
    assertNull(get(ns, p.getMetadata().getName()).getMetadata().getDeletionTimestamp());
    verify(slurm, never()).getJob(anyLong());
  }

  @Test
  void noPreemptTimeOrUnreadableSlurmRecordsNothingButStillEvicts() {
    Pod ended = runningPlacedPod(Map.of("app", "free"), 45L);
    when(slurm.getJob(45L)).thenReturn(job(45L, "TIMEOUT", null));
    assertTrue(
        activities
            .evictPod(ns, ended.getMetadata().getName(), ended.getMetadata().getUid(), "ended")
            .terminating());

    Pod unread = runningPlacedPod(Map.of("app", "free"), 46L);
    when(slurm.getJob(46L)).thenThrow(new SlurmUnavailableException("slurmrestd down"));
    assertTrue(
        activities
            .evictPod(ns, unread.getMetadata().getName(), unread.getMetadata().getUid(), "x")
            .terminating());
    assertEquals(0, timer().count());
  }
}
