package dev.tandem.workers;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.tandem.activities.KubeActivitiesImpl;
import dev.tandem.activities.RebootAction;
import dev.tandem.activities.RebootActions;
import dev.tandem.activities.RemediationActivitiesImpl;
import dev.tandem.activities.SchedulingActivitiesImpl;
import dev.tandem.activities.SlurmActivitiesImpl;
import dev.tandem.activities.SlurmView;
import dev.tandem.k8s.KubeClients;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmClients;
import dev.tandem.watchers.TemporalWorkflowSignals;
import dev.tandem.watchers.WatcherMetrics;
import dev.tandem.watchers.Watchers;
import dev.tandem.watchers.WorkflowSignals;
import dev.tandem.workflows.activities.KubeActivities;
import dev.tandem.workflows.activities.RemediationActivities;
import dev.tandem.workflows.activities.SchedulingActivities;
import dev.tandem.workflows.activities.SlurmActivities;
import dev.tandem.workflows.model.Tuning;
import dev.tandem.workflows.schedule.SchedulingConfig;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

/**
 * Wires the worker process. Guice builds the long-lived clients, activities and watchers once;
 * workflow instances are never injected (Temporal creates and replays them).
 */
public final class TandemModule extends AbstractModule {
  private final Env env;
  private final TandemConfig cfg;

  public TandemModule(Env env, TandemConfig cfg) {
    this.env = env;
    this.cfg = cfg;
  }

  @Override
  protected void configure() {
    bind(Env.class).toInstance(env);
    bind(TandemConfig.class).toInstance(cfg);
    bind(Clock.class).toInstance(Clock.systemUTC());
  }

  @Provides
  @Singleton
  PrometheusMeterRegistry registry() {
    return TandemMetrics.registry(env.bool("TANDEM_METRICS_TEMPORAL_FULL", false));
  }

  /**
   * {@code KUBECONFIG} if set (one file), else the in-cluster service account or ~/.kube/config.
   */
  @Provides
  @Singleton
  KubernetesClient kubernetes() {
    String file = env.string("KUBECONFIG", null);
    Config c;
    if (file == null) {
      c = Config.autoConfigure(null);
    } else {
      try {
        c = Config.fromKubeconfig(null, Files.readString(Path.of(file)), file);
      } catch (IOException e) {
        throw new ConfigException("KUBECONFIG=" + file + " cannot be read: " + e.getMessage());
      } catch (RuntimeException e) {
        // fabric8 throws its own exceptions for YAML it cannot use; without this the process
        // died with a Guice provisioning error that never named the variable.
        throw new ConfigException(
            "KUBECONFIG=" + file + " is not a usable kubeconfig: " + rootMessage(e));
      }
    }
    // Temporal retries activities with backoff already; the client's own long retry loop would
    // only hold an activity (and its timeout) hostage.
    c.setRequestRetryBackoffLimit(1);
    // User-Agent tandem/<version>: the API server records Tandem's writes under field manager
    // "tandem". The watchers, the leader election and the eviction client use this client's
    // configuration.
    try {
      return KubeClients.build(c);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage()); // a tokenFile that cannot be read
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  @Provides
  @Singleton
  SlurmClient slurm() {
    SlurmClientConfig c;
    try {
      c = SlurmClientConfig.fromEnv(env.raw());
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
    return SlurmClients.create(c);
  }

  @Provides
  @Singleton
  WorkflowServiceStubs service(PrometheusMeterRegistry registry) {
    return TemporalConnection.connect(cfg.temporal(), TemporalConnection.metricsScope(registry));
  }

  @Provides
  @Singleton
  WorkflowClient workflowClient(WorkflowServiceStubs service) {
    return workflowClient(service, cfg.temporal().namespace());
  }

  /** The worker's client: its namespace and Tandem's payload converter (also for tests). */
  public static WorkflowClient workflowClient(WorkflowServiceStubs service, String namespace) {
    return WorkflowClient.newInstance(
        service,
        WorkflowClientOptions.newBuilder()
            .setNamespace(namespace)
            .setDataConverter(PayloadJson.converter())
            .build());
  }

  /** The tuning workflows start with; search attributes only if the namespace has them. */
  @Provides
  @Singleton
  Tuning tuning(WorkflowServiceStubs service) {
    Tuning t = cfg.tuning();
    if (!t.searchAttributes() || !cfg.worker().registerSearchAttributes()) {
      return t;
    }
    return t.withSearchAttributes(
        SearchAttributeRegistrar.ensure(service, cfg.temporal().namespace()));
  }

  /**
   * The scheduling configuration with Slurm's {@code KillWait}, read once at start (see {@link
   * KillWaitLookup}; never blocks start on Slurm for long).
   */
  @Provides
  @Singleton
  SchedulingConfig schedulingConfig(SlurmClient slurm) {
    SchedulingSettings s = cfg.scheduling();
    KillWaitLookup.Result kw =
        KillWaitLookup.resolve(
            slurm::killWait, s.killWaitFallbackSeconds(), KillWaitLookup.TIMEOUT);
    if (kw.seconds() <= s.graceMarginSeconds()) {
      org.slf4j.LoggerFactory.getLogger(TandemModule.class)
          .warn(
              "Slurm KillWait {}s is not longer than {} ({}s): every pod scheduled through Slurm"
                  + " will be refused as its grace period cannot fit; raise KillWait in"
                  + " slurm.conf or lower the margin",
              kw.seconds(),
              "TANDEM_SCHED_GRACE_MARGIN",
              s.graceMarginSeconds());
    }
    return s.toConfig(kw.seconds());
  }

  @Provides
  @Singleton
  KubeActivities kubeActivities(KubernetesClient k8s, Clock clock) {
    return new KubeActivitiesImpl(k8s, clock);
  }

  /** The worker's one shared view of Slurm's nodes and jobs, read by every drain wait. */
  @Provides
  @Singleton
  SlurmView slurmView(SlurmClient slurm, Clock clock) {
    return new SlurmView(slurm, clock);
  }

  @Provides
  @Singleton
  SlurmActivities slurmActivities(SlurmClient slurm, Clock clock, SlurmView view) {
    return new SlurmActivitiesImpl(slurm, clock, view);
  }

  /** Pods through Slurm (docs/scheduling.md); closed by {@link TandemWorker#close()}. */
  @Provides
  @Singleton
  SchedulingActivities schedulingActivities(
      KubernetesClient k8s, SlurmClient slurm, PrometheusMeterRegistry registry, Clock clock) {
    return new SchedulingActivitiesImpl(k8s, slurm, registry, clock);
  }

  /**
   * Remediation (docs/remediation.md): its reboot action from {@code TANDEM_REMEDIATION_REBOOT},
   * checked when the worker starts (it asks for its activities then), so a typo stops the worker
   * with a message naming the variable.
   */
  @Provides
  @Singleton
  RemediationActivities remediationActivities(
      KubernetesClient k8s, SlurmClient slurm, WorkflowClient client, Clock clock) {
    RebootAction reboot;
    try {
      reboot = RebootActions.parse(env.string(RebootActions.ENV, null), k8s, clock);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
    return new RemediationActivitiesImpl(
        k8s, slurm, client, reboot, cfg.watching().clusterBudget(), clock);
  }

  @Provides
  @Singleton
  WatcherMetrics watcherMetrics(PrometheusMeterRegistry registry) {
    return new WatcherMetrics(registry);
  }

  @Provides
  @Singleton
  WorkflowSignals signals(WorkflowClient client, Tuning tuning, SchedulingConfig scheduling) {
    return new TemporalWorkflowSignals(client, tuning, scheduling);
  }

  @Provides
  @Singleton
  Watchers watchers(
      KubernetesClient k8s,
      SlurmClient slurm,
      WorkflowSignals signals,
      WatcherMetrics metrics,
      Clock clock) {
    TandemConfig.Watching w = cfg.watching();
    return new Watchers(
            k8s,
            slurm,
            signals,
            metrics,
            new Watchers.Config(
                w.informerResync(),
                w.slurmInterval(),
                w.slurmPendingInterval(),
                w.slurmFullResync(),
                w.unhealthyConditions(),
                w.signalThreads(),
                new Watchers.Lease(
                    w.leaseNamespace(),
                    w.leaseName(),
                    w.identity(),
                    w.leaseDuration(),
                    w.leaseRenewDeadline(),
                    w.leaseRetryPeriod()),
                new Watchers.Reachability(w.kubernetesProbe(), w.healthResend()),
                w.clusterBudget()),
            clock)
        .topology(
            new Watchers.TopologyConfig(
                w.topology(),
                w.topologyNamespace(),
                Watchers.TopologyConfig.OFF.debounce(),
                Watchers.TopologyConfig.OFF.repair()));
  }
}
