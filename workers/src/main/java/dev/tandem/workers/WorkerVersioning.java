package dev.tandem.workers;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.deployment.v1.WorkerDeploymentInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkerDeploymentRequest;
import io.temporal.api.workflowservice.v1.SetWorkerDeploymentCurrentVersionRequest;
import io.temporal.common.WorkerDeploymentVersion;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.WorkerDeploymentOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Temporal's Worker Versioning for Tandem's worker (docs/upgrading.md, "Worker Versioning"): the
 * worker polls as version {@code <deployment>:<build id>}; Tandem's short-lived workflows are
 * pinned to the version that started them and its long-lived ones move to the current version
 * ({@code @WorkflowVersioningBehavior} on their run methods, no default: a workflow type without
 * one is refused at registration). With {@code TANDEM_SET_CURRENT_VERSION} the worker makes its
 * version the deployment's Current Version once the server has seen it poll.
 */
public final class WorkerVersioning {
  private static final Logger log = LoggerFactory.getLogger(WorkerVersioning.class);

  private WorkerVersioning() {}

  /** The deployment options of the worker. */
  static WorkerDeploymentOptions deploymentOptions(TandemConfig.Versioning v) {
    return WorkerDeploymentOptions.newBuilder()
        .setUseVersioning(true)
        .setVersion(new WorkerDeploymentVersion(v.deploymentName(), v.buildId()))
        .build();
  }

  /** What {@link #makeCurrent} did. */
  public enum Outcome {
    /** This call made the version current. */
    SET,
    /** It was current already. */
    ALREADY,
    /** Something else manages the deployment (its manager identity is set): left alone. */
    MANAGED_ELSEWHERE
  }

  /**
   * Makes {@code v} the Current Version of its deployment, unless it is already or another manager
   * (e.g. the Temporal Worker Controller) owns the deployment's routing. The server accepts a
   * version only once a worker of it has polled, so a version it does not know yet (or a deployment
   * it does not know yet) is retried every second until {@code timeout}.
   *
   * @throws StatusRuntimeException the server's last refusal, when it still refused at the end
   */
  public static Outcome makeCurrent(
      WorkflowServiceStubs stubs,
      String namespace,
      TandemConfig.Versioning v,
      String identity,
      Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        WorkerDeploymentInfo info = describe(stubs, namespace, v.deploymentName());
        if (info != null) {
          var current = info.getRoutingConfig().getCurrentDeploymentVersion();
          if (current.getBuildId().equals(v.buildId())) {
            return Outcome.ALREADY;
          }
          if (!info.getManagerIdentity().isEmpty() && !info.getManagerIdentity().equals(identity)) {
            log.info(
                "Worker Deployment {} is managed by {}: not making {} its current version",
                v.deploymentName(),
                info.getManagerIdentity(),
                v);
            return Outcome.MANAGED_ELSEWHERE;
          }
        }
        stubs
            .blockingStub()
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .setWorkerDeploymentCurrentVersion(
                SetWorkerDeploymentCurrentVersionRequest.newBuilder()
                    .setNamespace(namespace)
                    .setDeploymentName(v.deploymentName())
                    .setBuildId(v.buildId())
                    .setIdentity(identity)
                    .build());
        String was =
            info == null
                ? "none"
                : info.getRoutingConfig().getCurrentDeploymentVersion().getBuildId();
        log.info(
            "Worker Deployment {}: current version is now build {} (was {})",
            v.deploymentName(),
            v.buildId(),
            was.isEmpty() ? "unversioned" : was);
        return Outcome.SET;
      } catch (StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        boolean notYet =
            code == Status.Code.NOT_FOUND
                || code == Status.Code.FAILED_PRECONDITION
                || code == Status.Code.UNAVAILABLE
                || code == Status.Code.DEADLINE_EXCEEDED
                || code == Status.Code.ABORTED
                || code == Status.Code.RESOURCE_EXHAUSTED;
        if (!notYet || System.nanoTime() > deadline) {
          throw e;
        }
        log.debug("making {} current: {}; trying again", v, e.getStatus());
        Thread.sleep(1000);
      }
    }
  }

  /** The deployment, or null when the server does not know it (yet). */
  static WorkerDeploymentInfo describe(
      WorkflowServiceStubs stubs, String namespace, String deploymentName) {
    try {
      return stubs
          .blockingStub()
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .describeWorkerDeployment(
              DescribeWorkerDeploymentRequest.newBuilder()
                  .setNamespace(namespace)
                  .setDeploymentName(deploymentName)
                  .build())
          .getWorkerDeploymentInfo();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }

  /**
   * Makes the version current in the background, for as long as it takes (Temporal may be down at
   * start, as the worker tolerates): {@link #pending()} says what is not done yet, for {@code
   * /readyz}, so a rollout whose new replicas cannot become current stops there instead of leaving
   * new executions to a version nobody polls.
   */
  public static Becoming becomeCurrent(
      WorkflowServiceStubs stubs, String namespace, TandemConfig.Versioning v, String identity) {
    Becoming b = new Becoming(v);
    Thread t =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                try {
                  Outcome o = makeCurrent(stubs, namespace, v, identity, Duration.ofMinutes(1));
                  b.outcome = o;
                  b.pending = null;
                  return;
                } catch (InterruptedException e) {
                  return;
                } catch (RuntimeException e) {
                  String why =
                      e instanceof StatusRuntimeException s
                              && s.getStatus().getCode() == Status.Code.UNIMPLEMENTED
                          ? "this Temporal has no Worker Versioning (Tandem needs server 1.28 or"
                              + " newer with system.enableDeploymentVersions, or Temporal Cloud)"
                          : e.getMessage();
                  b.pending = "cannot make " + v + " the current version: " + why;
                  log.warn("{}; trying again in 30s", b.pending);
                  try {
                    Thread.sleep(30_000);
                  } catch (InterruptedException ie) {
                    return;
                  }
                }
              }
            },
            "tandem-current-version");
    t.setDaemon(true);
    b.thread = t;
    t.start();
    return b;
  }

  /** A version on its way to becoming current ({@link #becomeCurrent}). */
  public static final class Becoming implements AutoCloseable {
    private volatile String pending;
    private volatile Outcome outcome;
    private Thread thread;

    private Becoming(TandemConfig.Versioning v) {
      this.pending =
          "making " + v + " the current version of Worker Deployment " + v.deploymentName();
    }

    /** Null once done; otherwise what it waits for. */
    public String pending() {
      return pending;
    }

    /** What was done, or null while not done. */
    public Outcome outcome() {
      return outcome;
    }

    /** Waits until done, at most {@code timeout}; true when done. */
    public boolean await(Duration timeout) throws InterruptedException {
      thread.join(timeout.toMillis());
      return pending == null;
    }

    @Override
    public void close() {
      thread.interrupt();
    }
  }
}
