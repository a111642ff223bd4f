package dev.tandem.workers;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.tandem.activities.SchedulingActivitiesImpl;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.watchers.PodWatcher;
import dev.tandem.watchers.Watchers;
import dev.tandem.workflows.Names;
import dev.tandem.workflows.activities.KubeActivities;
import dev.tandem.workflows.activities.RemediationActivities;
import dev.tandem.workflows.activities.SchedulingActivities;
import dev.tandem.workflows.activities.SlurmActivities;
import dev.tandem.workflows.node.NodeLifecycleWorkflowImpl;
import dev.tandem.workflows.nodeset.NodeSetWorkflowImpl;
import dev.tandem.workflows.remediation.RemediationBudgetWorkflowImpl;
import dev.tandem.workflows.remediation.RemediationWorkflowImpl;
import dev.tandem.workflows.schedule.PodGroupWorkflowImpl;
import dev.tandem.workflows.schedule.PodScheduleWorkflowImpl;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Tandem process: a Temporal worker on the {@code tandem} queue (every replica), the watchers
 * (the leader only), and the HTTP endpoints. {@link #close()} shuts down gracefully: watchers stop
 * first (no new signals), then the worker stops polling and in-flight activities get the configured
 * grace period to finish.
 */
public final class TandemWorker implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TandemWorker.class);

  private final TandemConfig cfg;
  private final Injector injector;
  private WorkerFactory factory;
  private HttpEndpoints http;
  private volatile Watchers watchers;
  private volatile boolean started;
  private volatile WorkerVersioning.Becoming becoming;

  /**
   * Tandem's workflows. Each declares on its run method whether an execution stays on the build
   * that started it ({@code PINNED}) or moves to the current one ({@code AUTO_UPGRADE});
   * docs/upgrading.md has the table, {@code WorkflowVersioningBehaviorTest} holds them to it.
   */
  public static final List<Class<?>> WORKFLOW_TYPES =
      List.of(
          NodeSetWorkflowImpl.class,
          NodeLifecycleWorkflowImpl.class,
          PodScheduleWorkflowImpl.class,
          PodGroupWorkflowImpl.class,
          RemediationWorkflowImpl.class,
          RemediationBudgetWorkflowImpl.class);

  public TandemWorker(Map<String, String> environment) {
    Env env = new Env(environment);
    this.cfg = TandemConfig.from(env);
    this.injector = Guice.createInjector(new TandemModule(env, cfg));
  }

  /** The instance, with a configuration error thrown as itself rather than wrapped by Guice. */
  <T> T get(Class<T> type) {
    try {
      return injector.getInstance(type);
    } catch (com.google.inject.ProvisionException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof ConfigException ce) {
          throw ce;
        }
      }
      throw e;
    }
  }

  public TandemWorker start() throws IOException {
    log.info("starting Tandem: {}", cfg.temporal());
    WorkflowClient client = get(WorkflowClient.class);
    factory =
        WorkerFactory.newInstance(
            client,
            factoryOptions(cfg.worker())
                .setWorkerInterceptors(
                    new ActivityProgressInterceptor(get(PrometheusMeterRegistry.class)),
                    new CompactActivityFailures())
                .build());
    log.info("Worker Deployment version: {}", cfg.versioning());
    Worker worker = newWorker(factory, cfg.worker(), cfg.versioning());
    worker.registerActivitiesImplementations(
        get(KubeActivities.class),
        get(SlurmActivities.class),
        get(SchedulingActivities.class),
        get(RemediationActivities.class));
    get(dev.tandem.workflows.model.Tuning.class); // registers search attributes
    factory.start();
    if (cfg.versioning().setCurrent()) {
      becoming =
          WorkerVersioning.becomeCurrent(
              get(WorkflowServiceStubs.class),
              cfg.temporal().namespace(),
              cfg.versioning(),
              cfg.watching().identity());
    }
    http =
        new HttpEndpoints(
            cfg.http().bind(),
            cfg.http().port(),
            get(PrometheusMeterRegistry.class),
            this::notReadyBecause,
            this::unhealthyBecause);
    if (cfg.watching().enabled()) {
      watchers = get(Watchers.class);
      if (cfg.watching().leaderElection()) {
        watchers.startWithLeaderElection();
      } else {
        watchers.startWatching();
      }
    }
    started = true;
    log.info(
        "Tandem worker polling task queue {}; metrics and probes on {}:{}",
        Names.TASK_QUEUE,
        cfg.http().bind(),
        http.port());
    return this;
  }

  /**
   * The worker every replica runs on task queue {@code tandem}: its options (with the Worker
   * Deployment version, unless versioning is off) and Tandem's workflow types; activities are
   * registered by the caller. Public for the end-to-end test of Worker Versioning.
   */
  public static Worker newWorker(
      WorkerFactory factory, TandemConfig.Worker w, TandemConfig.Versioning v) {
    Worker worker = factory.newWorker(Names.TASK_QUEUE, workerOptions(w, v));
    worker.registerWorkflowImplementationTypes(WORKFLOW_TYPES.toArray(Class<?>[]::new));
    return worker;
  }

  /**
   * The factory's cache: every workflow this replica runs stays in memory between its tasks, so a
   * task costs its new events, not a replay of its whole history. A cached workflow holds a thread
   * (parked, a small stack), so the thread limit is twice the cache: room for the extra threads of
   * running workflows without evicting cached ones. Both are limits, not allocations: a small fleet
   * uses what it has.
   */
  static WorkerFactoryOptions.Builder factoryOptions(TandemConfig.Worker w) {
    return WorkerFactoryOptions.newBuilder()
        .setWorkflowCacheSize(w.workflowCache())
        .setMaxWorkflowThreadCount(2 * w.workflowCache());
  }

  /**
   * How long a workflow thread may run without yielding before the SDK fails the task as a
   * potential deadlock (the SDK's default is 1 s). Tandem's workflows never block; what can take
   * over 1 s is a busy worker (a full GC, or replaying a NodeSet of 1,000 nodes), and each such
   * failure would make the task replay again, under the same load.
   */
  static final java.time.Duration DEADLOCK_DETECTION = java.time.Duration.ofSeconds(10);

  /**
   * The SDK worker's options, with its Worker Deployment version. The sticky schedule-to-start
   * timeout is set explicitly (not left to the SDK's default) because it bounds how long a crashed
   * replica delays the workflows it held.
   */
  public static WorkerOptions workerOptions(TandemConfig.Worker w, TandemConfig.Versioning v) {
    WorkerOptions.Builder b =
        WorkerOptions.newBuilder()
            .setMaxConcurrentActivityExecutionSize(w.maxConcurrentActivities())
            .setMaxConcurrentWorkflowTaskExecutionSize(w.maxConcurrentWorkflowTasks())
            .setMaxConcurrentWorkflowTaskPollers(w.workflowTaskPollers())
            .setStickyQueueScheduleToStartTimeout(w.stickyTimeout())
            .setDefaultDeadlockDetectionTimeout(DEADLOCK_DETECTION.toMillis());
    var deployment = WorkerVersioning.deploymentOptions(v);
    if (deployment != null) {
      b.setDeploymentOptions(deployment);
    }
    return b.build();
  }

  /** Null when ready; otherwise why not (shown by {@code /readyz}). */
  String notReadyBecause() {
    if (!started) {
      return "starting";
    }
    if (factory.isShutdown()) {
      return "shutting down";
    }
    try {
      injector
          .getInstance(WorkflowServiceStubs.class)
          .blockingStub()
          .withDeadlineAfter(2, TimeUnit.SECONDS)
          .getSystemInfo(
              io.temporal.api.workflowservice.v1.GetSystemInfoRequest.getDefaultInstance());
    } catch (RuntimeException e) {
      return "Temporal unreachable: " + e.getMessage();
    }
    String refused = watchers == null ? null : watchers.kubernetesRefused();
    if (refused != null) {
      return "Kubernetes refuses this replica's calls: " + refused;
    }
    WorkerVersioning.Becoming b = becoming;
    if (b != null && b.pending() != null) {
      return b.pending();
    }
    PodWatcher pods = watchers == null ? null : watchers.pods();
    if (pods != null && !pods.synced()) {
      return "watchers not synced yet";
    }
    return null;
  }

  /** Null when alive; otherwise what is dead (shown by {@code /healthz}). */
  String unhealthyBecause() {
    Watchers w = watchers;
    return w == null ? null : w.problem();
  }

  public int httpPort() {
    return http.port();
  }

  public Injector injector() {
    return injector;
  }

  public Watchers watchers() {
    return watchers;
  }

  @Override
  public void close() {
    log.info("stopping Tandem");
    started = false;
    if (watchers != null) {
      watchers.close();
    }
    if (becoming != null) {
      becoming.close();
    }
    if (factory != null) {
      factory.shutdown();
      factory.awaitTermination(cfg.worker().shutdownGrace().toMillis(), TimeUnit.MILLISECONDS);
      if (!factory.isTerminated()) {
        log.warn("activities still running after {}; stopping them", cfg.worker().shutdownGrace());
        factory.shutdownNow();
      }
    }
    if (http != null) {
      http.close();
    }
    quietly(
        () -> {
          if (injector.getInstance(SchedulingActivities.class)
              instanceof SchedulingActivitiesImpl impl) {
            impl.close(); // its own eviction client
          }
        });
    quietly(() -> injector.getInstance(KubernetesClient.class).close());
    quietly(() -> injector.getInstance(SlurmClient.class).close());
    quietly(() -> injector.getInstance(WorkflowServiceStubs.class).shutdown());
  }

  private static void quietly(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      log.debug("while stopping: {}", e.toString());
    }
  }
}
