package dev.tandem.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.local.LocalSlurm;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.activities.SlurmActivities;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.schedule.Exclusivity;
import dev.tandem.workflows.schedule.PlaceholderJob;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Slurm side of {@link SchedulingActivitiesImpl} against the real local Slurm 22.05: one job
 * per tag however often submit runs, find, cancel, Slurm's refusal, and the preempt time that the
 * eviction metric starts from. (Kubernetes is not used here; see devstack's scheduling tests.)
 */
class SchedulingActivitiesV0038IT {
  private static final Duration WAIT = Duration.ofSeconds(40);

  private static SlurmClient slurm;
  private static KubernetesClient unusedKube;
  private static SchedulingActivitiesImpl activities;
  private final List<Long> submitted = new ArrayList<>();

  @BeforeAll
  static void connect() {
    slurm = LocalSlurm.get().client();
    // Never contacted by the Slurm-side methods.
    unusedKube =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build())
            .build();
    activities =
        new SchedulingActivitiesImpl(
            unusedKube, slurm, new SimpleMeterRegistry(), Clock.systemUTC());
  }

  @AfterAll
  static void close() {
    if (activities != null) {
      activities.close();
    }
    if (unusedKube != null) {
      unusedKube.close();
    }
    if (slurm != null) {
      slurm.close();
    }
  }

  @AfterEach
  void cancelOwnJobs() {
    for (long id : submitted) {
      slurm.cancel(id, null);
    }
  }

  private static PlaceholderJob small(String uid, String partition) {
    return new PlaceholderJob(
        PlaceholderJob.nameFor(uid),
        PlaceholderJob.commentFor(uid, "pod=default/it"),
        uid,
        1,
        1,
        100,
        null,
        partition,
        null,
        null,
        30L,
        null,
        Exclusivity.NONE,
        10,
        false);
  }

  private SlurmJobView submit(PlaceholderJob p) {
    SlurmJobView v = activities.submitPlaceholder(p);
    submitted.add(v.id());
    return v;
  }

  /**
   * Released (its pod has stopped), a running placeholder ends at once: its trap takes the release
   * signal and the shell exits (0). Cancelled instead, it would hold its node for KillWait (5 s
   * here) and end by SIGKILL (137).
   */
  @Test
  void releasingEndsARunningPlaceholderAtOnce() throws InterruptedException {
    String uid = UUID.randomUUID().toString();
    SlurmJobView v = submit(small(uid, "low"));
    Await.until(
        "placeholder running",
        WAIT,
        () -> activities.findJobs(uid).get(0),
        j -> "RUNNING".equals(j.state()));
    // A signal reaches only a started batch shell, which slurmd launches just after RUNNING.
    Thread.sleep(1_000);
    long start = System.nanoTime();
    activities.releaseJob(v.id(), "pod succeeded");
    SlurmJob done =
        Await.until("placeholder ended", WAIT, () -> slurm.getJob(v.id()), j -> !j.mayHoldNodes());
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    // The cancel that follows the signal may land before the shell has exited: either state.
    assertTrue(Set.of("COMPLETED", "CANCELLED").contains(done.state()), done.toString());
    // Its shell exited on the signal (0); cancelled, it would have been killed after KillWait (137,
    // SIGKILL, 4.7 s after the cancel here).
    assertEquals(0, done.exitCode(), "held " + took + ", then killed: cancelled, not released");
  }

  @Test
  void submittingTwiceGivesOneJobThatFindCancelAndResubmitAgreeOn() {
    String uid = UUID.randomUUID().toString();
    SlurmJobView first = submit(small(uid, "low"));
    assertTrue(first.id() > 0);
    assertEquals(PlaceholderJob.nameFor(uid), first.name());
    assertEquals(PlaceholderJob.COMMENT_PREFIX + uid, first.comment(), "the tag");
    SlurmJobView second = submit(small(uid, "low"));
    assertEquals(first.id(), second.id(), "a retried submit must not make a second job");

    List<SlurmJobView> found = activities.findJobs(uid);
    assertEquals(1, found.size(), found.toString());
    assertEquals(first.id(), found.get(0).id());
    SlurmJob job = slurm.getJob(first.id());
    assertEquals("low", job.partition());
    assertEquals(30L, job.timeLimitMinutes());

    SlurmJobView cancelled = activities.cancelJob(first.id(), "pod deleted");
    assertEquals(first.id(), cancelled.id());
    Await.until(
        "job " + first.id() + " cancelled",
        WAIT,
        () -> activities.findJobs(uid),
        l -> l.size() == 1 && "CANCELLED".equals(l.get(0).state()));
    // Idempotent, and the tag's ended job is the answer to a late submit: no second job.
    assertEquals("CANCELLED", activities.cancelJob(first.id(), "again").state());
    SlurmJobView late = submit(small(uid, "low"));
    assertEquals(first.id(), late.id());
    assertEquals("CANCELLED", late.state());
    assertEquals(1, activities.findJobs(uid).size());
  }

  @Test
  void aGangTagWithADotGivesOneTwoNodeJob() {
    // Names.podGroupTag(ns, group) = <ns>.<group>: the dot tells it from a pod uid.
    String tag = "it-" + UUID.randomUUID().toString().substring(0, 8) + ".trainers";
    PlaceholderJob one = small(tag, "low");
    PlaceholderJob gang =
        new PlaceholderJob(
            one.name(),
            one.comment(),
            tag,
            2,
            1,
            100,
            null,
            "low",
            null,
            null,
            30L,
            null,
            Exclusivity.NONE,
            null,
            false);
    SlurmJobView first = submit(gang);
    assertEquals(first.id(), submit(gang).id());
    SlurmJobView running =
        Await.until(
                "gang placeholder running",
                WAIT,
                () -> activities.findJobs(tag),
                l -> l.size() == 1 && "RUNNING".equals(l.get(0).state()))
            .get(0);
    assertEquals(2, running.nodes().size(), running.toString());
  }

  @Test
  void unknownJobCancelsAsGone() {
    assertEquals(SlurmJobView.GONE, activities.cancelJob(987_654_321L, "nothing").state());
  }

  @Test
  void unknownPartitionIsRejectedForGoodWithSlurmsMessage() {
    String uid = UUID.randomUUID().toString();
    ApplicationFailure f =
        assertThrows(ApplicationFailure.class, () -> submit(small(uid, "no-such-partition")));
    assertEquals(SlurmActivities.REJECTED, f.getType());
    assertTrue(f.isNonRetryable());
    assertTrue(
        f.getOriginalMessage().toLowerCase(Locale.ROOT).contains("partition"), f.getMessage());
    assertTrue(activities.findJobs(uid).isEmpty());
  }

  @Test
  void preemptedPlaceholderEndsPreemptedWithThePreemptTimeTheMetricStartsFrom() {
    String uid = UUID.randomUUID().toString();
    SlurmJobView v = submit(small(uid, "low"));
    SlurmJobView running =
        Await.until(
            "placeholder running",
            WAIT,
            () -> activities.findJobs(uid).get(0),
            j -> "RUNNING".equals(j.state()));
    long high =
        slurm.submit(
            JobSubmission.builder("tandem-it-high")
                .partition("high")
                .qos("high")
                .nodeList(List.of(running.nodes().get(0)))
                .exclusive(true)
                .build());
    submitted.add(high);
    Await.until(
        "placeholder preempted",
        WAIT,
        () -> activities.findJobs(uid).get(0),
        j -> "PREEMPTED".equals(j.state()));
    // What PodEvictor reads (by the pod's tandem.dev/job-id) to time preemption -> eviction.
    assertNotNull(slurm.getJob(v.id()).preemptTime());
    // Cancelling a preempted placeholder changes nothing.
    assertEquals("PREEMPTED", activities.cancelJob(v.id(), "evicted").state());
  }
}
