package dev.tandem.devstack.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.activities.SchedulingActivitiesImpl;
import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.local.LocalSlurm;
import dev.tandem.slurm.testing.Await;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.schedule.BindRequest;
import dev.tandem.workflows.schedule.Exclusivity;
import dev.tandem.workflows.schedule.PlaceholderJob;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The whole preemption path of {@link SchedulingActivitiesImpl} with the real local Slurm 22.05 and
 * the JVM's real control plane: placeholder submitted, pod bound with the job annotations, a real
 * high-priority job preempts the placeholder, the pod is evicted and {@code
 * tandem_preemption_to_eviction_seconds} gets Slurm's preempt time → eviction.
 */
class PreemptionToEvictionIT extends SchedulingApiBase {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void preemptedPlaceholdersPodIsEvictedAndTheDelayRecorded() throws Exception {
    SlurmClient slurm = LocalSlurm.get().client();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    List<Long> jobs = new ArrayList<>();
    try (SchedulingActivitiesImpl activities =
        new SchedulingActivitiesImpl(client, slurm, registry, Clock.systemUTC())) {
      Pod pod =
          client
              .pods()
              .inNamespace(ns)
              .resource(
                  new PodBuilder()
                      .withNewMetadata()
                      .withName("trainer")
                      .endMetadata()
                      .withNewSpec()
                      .withSchedulerName("tandem-slurm")
                      .withTerminationGracePeriodSeconds(10L)
                      .addNewContainer()
                      .withName("main")
                      .withImage("busybox:1.36")
                      .endContainer()
                      .endSpec()
                      .build())
              .create();
      String uid = pod.getMetadata().getUid();
      SlurmJobView job =
          activities.submitPlaceholder(
              new PlaceholderJob(
                  PlaceholderJob.nameFor(uid),
                  PlaceholderJob.commentFor(uid, "pod=default/it"),
                  uid,
                  1,
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
                  false));
      jobs.add(job.id());
      SlurmJobView running =
          Await.until(
              "placeholder running",
              WAIT,
              () -> activities.findJobs(uid).get(0),
              j -> "RUNNING".equals(j.state()));
      String slurmNode = running.nodes().get(0);
      PodView bound =
          activities.bindPod(new BindRequest(ns, "trainer", uid, n1, job.id(), slurmNode));
      assertEquals(n1, bound.k8sNode());
      client
          .pods()
          .inNamespace(ns)
          .withName("trainer")
          .subresource("status")
          .patch(
              PatchContext.of(PatchType.STRATEGIC_MERGE),
              "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\","
                  + "\"status\":\"True\"}]}}");

      jobs.add(
          slurm.submit(
              JobSubmission.builder("tandem-it-high")
                  .partition("high")
                  .qos("high")
                  .nodeList(List.of(slurmNode))
                  .exclusive(true)
                  .build()));
      Await.until(
          "placeholder preempted",
          WAIT,
          () -> activities.findJobs(uid).get(0),
          j -> "PREEMPTED".equals(j.state()));

      PodView evicted = activities.evictPod(ns, "trainer", uid, "placeholder preempted");
      assertTrue(evicted.exists() && evicted.terminating(), evicted.toString());
      Timer t = registry.find("tandem.preemption.to.eviction").timer();
      assertEquals(1, t.count());
      // Preempt time (whole seconds in Slurm) to now: at least 0, at most this test's waits.
      double seconds = t.totalTime(TimeUnit.SECONDS);
      assertTrue(seconds >= 0 && seconds < WAIT.toSeconds() * 2, "recorded " + seconds + " s");
    } finally {
      for (long id : jobs) {
        slurm.cancel(id, null);
      }
      slurm.close();
    }
  }
}
