package dev.tandem.activities;

import dev.tandem.k8s.KubeClients;
import dev.tandem.k8s.PodViews;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.schedule.ScheduleAnnotations;
import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.Eviction;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evicts a pod with the policy/v1 Eviction API, as {@code kubectl drain} does:
 *
 * <ol>
 *   <li>Read the pod. Gone, or another uid under the name: {@link PodView#absent}. Already being
 *       deleted: returned as it is (evicting again changes nothing).
 *   <li>POST an Eviction with a uid precondition and no grace period of its own, so the pod's
 *       {@code terminationGracePeriodSeconds} applies (the workflow checked it fits in Slurm's
 *       KillWait).
 *   <li>429 (a PodDisruptionBudget allows no disruption now): the pod is returned as it is; the
 *       workflow tries again later. 404: absent. 409 (uid changed): re-read from step 1.
 *   <li>Accepted: if the pod's placeholder job ({@code tandem.dev/job-id}) was preempted, record
 *       preempt time → acceptance in {@value #METRIC} (best effort: a Slurm read failure only loses
 *       the sample, the eviction is done). Return the pod as it is now.
 * </ol>
 */
final class PodEvictor implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PodEvictor.class);

  /** Micrometer name; Prometheus shows {@code tandem_preemption_to_eviction_seconds}. */
  static final String METRIC = "tandem.preemption.to.eviction";

  private final KubernetesClient client;

  /**
   * The eviction POST goes through a client that does not retry by itself: fabric8 retries a 429
   * with exponential backoff (about 25 s with its defaults), which would hold the activity close to
   * its start-to-close timeout for a budget that will not change that fast. The workflow retries a
   * refused eviction on its own schedule instead.
   */
  private final KubernetesClient evictClient;

  private final SlurmClient slurm;
  private final Clock clock;
  private final Timer preemptionToEviction;

  PodEvictor(KubernetesClient client, SlurmClient slurm, MeterRegistry registry, Clock clock) {
    this.client = client;
    this.evictClient =
        KubeClients.build(
            new ConfigBuilder(client.getConfiguration()).withRequestRetryBackoffLimit(0).build());
    this.slurm = slurm;
    this.clock = clock;
    this.preemptionToEviction =
        Timer.builder(METRIC)
            .description("From Slurm preempting a pod's placeholder job to its eviction accepted")
            .publishPercentiles(0.5, 0.99)
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(10))
            .maximumExpectedValue(Duration.ofMinutes(10))
            .register(registry);
  }

  PodView evict(String namespace, String name, String uid, String reason) {
    if (namespace == null || name == null || uid == null) {
      throw KubeCalls.rejected("evictPod needs a namespace, a name and a uid");
    }
    String what = "evict pod " + namespace + "/" + name;
    return KubeCalls.withConflictRetry(
        what,
        () -> {
          Pod p = get(namespace, name);
          if (p == null || !uid.equals(p.getMetadata().getUid())) {
            return PodView.absent(name);
          }
          if (p.getMetadata().getDeletionTimestamp() != null) {
            return PodViews.of(p);
          }
          boolean accepted;
          try {
            accepted = evictClient.pods().inNamespace(namespace).withName(name).evict(eviction(p));
          } catch (KubernetesClientException e) {
            if (KubeCalls.is(e, 404)) {
              return PodView.absent(name);
            }
            throw e;
          }
          if (!accepted) {
            log.info("{}: refused for now (PodDisruptionBudget); will try again", what);
            return PodViews.of(p);
          }
          Instant acceptedAt = clock.instant();
          log.info("{}: evicted ({})", what, reason);
          recordPreemption(what, p, acceptedAt);
          Pod after = get(namespace, name);
          return after == null || !uid.equals(after.getMetadata().getUid())
              ? PodView.absent(name)
              : PodViews.of(after);
        });
  }

  private static Eviction eviction(Pod p) {
    return new EvictionBuilder()
        .withNewMetadata()
        .withName(p.getMetadata().getName())
        .withNamespace(p.getMetadata().getNamespace())
        .endMetadata()
        .withDeleteOptions(
            new DeleteOptionsBuilder()
                .withNewPreconditions()
                .withUid(p.getMetadata().getUid())
                .endPreconditions()
                .build())
        .build();
  }

  private void recordPreemption(String what, Pod p, Instant acceptedAt) {
    Long jobId = jobId(p);
    if (jobId == null) {
      return;
    }
    try {
      SlurmJob job = slurm.getJob(jobId);
      if (job.preemptTime() == null) {
        return;
      }
      Duration d = Duration.between(job.preemptTime(), acceptedAt);
      preemptionToEviction.record(d.isNegative() ? Duration.ZERO : d);
    } catch (RuntimeException e) { // SlurmException too: the eviction is done either way
      log.info("{}: preemption time of job {} not recorded: {}", what, jobId, e.toString());
    }
  }

  private static Long jobId(Pod p) {
    Map<String, String> a = p.getMetadata().getAnnotations();
    String v = a == null ? null : a.get(ScheduleAnnotations.JOB_ID);
    if (v == null) {
      return null;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  @Override
  public void close() {
    evictClient.close();
  }

  private Pod get(String namespace, String name) {
    return client.pods().inNamespace(namespace).withName(name).get();
  }
}
