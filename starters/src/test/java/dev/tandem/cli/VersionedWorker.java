package dev.tandem.cli;

import dev.tandem.workers.Env;
import dev.tandem.workers.TandemConfig;
import dev.tandem.workers.TandemWorker;
import dev.tandem.workers.WorkerVersioning;
import dev.tandem.workflows.Names;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import java.time.Duration;
import java.util.Map;

/**
 * A worker on Tandem's task queue with the production worker's options, as a version of the Worker
 * Deployment {@code tandem}: the real server refuses every task of Tandem's workflow types (which
 * declare a versioning behaviour) from an unversioned worker. For tests that run Tandem's workflows
 * with fake activities.
 */
final class VersionedWorker {
  static final TandemConfig.Versioning VERSION =
      new TandemConfig.Versioning("tandem", "cli-test", true);

  private VersionedWorker() {}

  static Worker newWorker(WorkerFactory factory) {
    TandemConfig.Worker w = TandemConfig.from(new Env(Map.of())).worker();
    return factory.newWorker(Names.TASK_QUEUE, TandemWorker.workerOptions(w, VERSION));
  }

  /** After {@code factory.start()}: makes the version current, so new executions reach it. */
  static void makeCurrent(WorkflowServiceStubs stubs) throws InterruptedException {
    WorkerVersioning.makeCurrent(stubs, "default", VERSION, "cli-test", Duration.ofSeconds(60));
  }
}
