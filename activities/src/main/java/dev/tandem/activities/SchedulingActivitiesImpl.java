package dev.tandem.activities;

import dev.tandem.k8s.PodViews;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.workflows.activities.SchedulingActivities;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.EventRequest;
import dev.tandem.workflows.model.PodView;
import dev.tandem.workflows.model.SlurmJobView;
import dev.tandem.workflows.schedule.AnnounceRequest;
import dev.tandem.workflows.schedule.Announced;
import dev.tandem.workflows.schedule.BindRequest;
import dev.tandem.workflows.schedule.PlaceholderJob;
import dev.tandem.workflows.schedule.Placement;
import dev.tandem.workflows.schedule.PlacementRequest;
import dev.tandem.workflows.schedule.Preemptor;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.temporal.activity.Activity;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SchedulingActivities} over slurmrestd ({@link PlaceholderSubmitter}) and fabric8 ({@link
 * PodBinder}, {@link PodEvictor}, {@link PodConditions}, {@link SlurmdPods}, {@link
 * EventRecorder}). Errors become activity failures as everywhere in this package: Slurm's through
 * {@link SlurmFailures}, Kubernetes' through {@link KubeCalls}.
 *
 * <p>One instance per worker (it holds a second, non-retrying Kubernetes client for evictions, see
 * {@link PodEvictor}); {@link #close} releases that client, not the ones passed in.
 */
public class SchedulingActivitiesImpl implements SchedulingActivities, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SchedulingActivitiesImpl.class);
  private final KubernetesClient client;
  private final PlaceholderSubmitter placeholders;
  private final PodBinder binder;
  private final PodEvictor evictor;
  private final PodConditions conditions;
  private final SlurmdPods slurmdPods;
  private final EventRecorder events;
  private final PreemptorFinder preemptors;

  public SchedulingActivitiesImpl(
      KubernetesClient client, SlurmClient slurm, MeterRegistry registry, Clock clock) {
    this.client = Objects.requireNonNull(client, "client");
    Objects.requireNonNull(slurm, "slurm");
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(clock, "clock");
    this.placeholders = new PlaceholderSubmitter(slurm, clock);
    this.binder = new PodBinder(client);
    this.evictor = new PodEvictor(client, slurm, registry, clock);
    this.conditions = new PodConditions(client, clock);
    this.slurmdPods = new SlurmdPods(client);
    this.events = new EventRecorder(client, clock);
    this.preemptors = new PreemptorFinder(slurm, clock);
  }

  @Override
  public SlurmJobView submitPlaceholder(PlaceholderJob job) {
    return placeholders.submit(job);
  }

  @Override
  public SlurmJobView submitFirstPlaceholder(PlaceholderJob job) {
    return placeholders.submitFirst(job, Activity.getExecutionContext().getInfo().getAttempt());
  }

  @Override
  public List<SlurmJobView> findJobs(String podUid) {
    return placeholders.find(podUid);
  }

  @Override
  public SlurmJobView cancelJob(long jobId, String reason) {
    return placeholders.cancel(jobId, reason);
  }

  @Override
  public SlurmJobView releaseJob(long jobId, String reason) {
    return placeholders.release(jobId, reason);
  }

  @Override
  public Preemptor findPreemptor(long jobId, List<String> nodes) {
    return preemptors.find(jobId, nodes);
  }

  @Override
  public PodView bindPod(BindRequest request) {
    return binder.bind(request);
  }

  /**
   * {@link SchedulingActivities#placePod}: the fresh read of the slurmd pod ({@link SlurmdPods}),
   * the Binding ({@link PodBinder}), then for a pod bound there the condition as one strategic
   * merge patch ({@link PodConditions#setChanging}) and the event (best effort). Six requests and
   * four local activities before; four requests and one local activity now when all goes well.
   */
  @Override
  public Placement placePod(PlacementRequest r) {
    if (r == null || r.namespace() == null || r.name() == null || r.uid() == null) {
      throw KubeCalls.rejected("placePod needs a namespace, a name and a uid, got " + r);
    }
    String k8s = slurmdPods.k8sNodeOf(r.slurmNode());
    if (k8s == null) {
      return new Placement(null, null);
    }
    PodView p = binder.bind(r.bindTo(k8s));
    if (p.exists() && !p.terminating() && !p.failed() && k8s.equals(p.k8sNode())) {
      conditions.setChanging(r.namespace(), r.name(), r.uid(), r.boundCondition(k8s));
      events.record(r.boundEvent(k8s));
    }
    return new Placement(k8s, p);
  }

  /**
   * {@link SchedulingActivities#announceAndEvict}: the condition as one strategic merge patch
   * ({@link PodConditions#setChanging}), the event, then {@link PodEvictor#evict}, whose failure is
   * answered as no answer (the workflow evicts again alone). Six requests and three local
   * activities before (a read and a patch for the condition, with fabric8's read before the patch;
   * the event; the eviction's read, POST and read back); five and one now.
   */
  @Override
  public Announced announceAndEvict(AnnounceRequest r) {
    if (r == null
        || r.namespace() == null
        || r.name() == null
        || r.uid() == null
        || r.condition() == null) {
      throw KubeCalls.rejected("announceAndEvict needs a pod and a condition, got " + r);
    }
    conditions.setChanging(r.namespace(), r.name(), r.uid(), r.condition());
    events.record(r.event());
    try {
      return new Announced(
          evictor.evict(r.namespace(), r.name(), r.uid(), r.condition().message()));
    } catch (RuntimeException e) {
      log.warn(
          "evict pod {}/{}: {} (the workflow evicts again)", r.namespace(), r.name(), e.toString());
      return new Announced(null);
    }
  }

  @Override
  public PodView evictPod(String namespace, String name, String uid, String reason) {
    return evictor.evict(namespace, name, uid, reason);
  }

  @Override
  public void setPodCondition(String namespace, String name, String uid, Condition condition) {
    conditions.set(namespace, name, uid, condition);
  }

  @Override
  public void recordEvent(EventRequest event) {
    events.record(event);
  }

  @Override
  public String slurmNodeToK8sNode(String slurmNode) {
    return slurmdPods.k8sNodeOf(slurmNode);
  }

  @Override
  public void close() {
    evictor.close();
  }

  @Override
  public PodView getPod(String namespace, String name) {
    Pod p =
        KubeCalls.call(
            "get pod " + namespace + "/" + name,
            () -> client.pods().inNamespace(namespace).withName(name).get());
    return p == null ? PodView.absent(name) : PodViews.of(p);
  }
}
