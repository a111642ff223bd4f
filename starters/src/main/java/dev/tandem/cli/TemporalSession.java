package dev.tandem.cli;

import com.google.protobuf.ByteString;
import dev.tandem.workflows.Names;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflow.v1.WorkflowExecutionInfo;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListWorkflowExecutionsResponse;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One command's connection to Temporal, where every call is bounded and every failure says which
 * part is missing: Temporal itself, or a worker to answer.
 *
 * <ol>
 *   <li>{@link #workers()} asks {@code DescribeTaskQueue} who polls Tandem's task queue (once per
 *       command). The first call also proves Temporal answers: no answer within the timeout, or a
 *       refused connection, is "cannot reach Temporal". A server that cannot list pollers
 *       (UNIMPLEMENTED, or the caller may not) leaves the presence {@code UNKNOWN}: the query
 *       deadline is then the only guard.
 *   <li>{@link #requireWorker()} fails at once when no worker polled recently: a query would only
 *       wait for nobody.
 *   <li>{@link #query} runs a query under a gRPC deadline (the SDK's own retries stop at it too). A
 *       deadline hit, or a real server's "no poller seen recently" refusal, becomes a {@link
 *       NoAnswer} that names the pollers seen.
 *   <li>{@link #call} bounds anything else (signals, describes) the same way; a deadline hit there
 *       means Temporal did not answer.
 *   <li>{@link #list} lists workflows from visibility ({@code ListWorkflowExecutions}), every page
 *       within one timeout.
 * </ol>
 */
final class TemporalSession implements AutoCloseable {
  /** Times the deadlines; a daemon thread, so it never keeps the CLI alive. */
  private static final ScheduledExecutorService DEADLINES =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "tandem-deadlines");
            t.setDaemon(true);
            return t;
          });

  /** The worker did not (or cannot) answer; Temporal itself did. */
  static final class NoAnswer extends CliException {
    private static final long serialVersionUID = 1L;

    NoAnswer(String message) {
      super(message);
    }
  }

  private final WorkflowClient client;
  private final String address;
  private final String namespace;
  private final Duration timeout;
  private WorkerPresence workers;

  TemporalSession(WorkflowClient client, String address, String namespace, Duration timeout) {
    this.client = client;
    this.address = address;
    this.namespace = namespace;
    this.timeout = timeout;
  }

  WorkflowClient client() {
    return client;
  }

  String address() {
    return address;
  }

  Duration timeout() {
    return timeout;
  }

  private WorkflowServiceStubs stubs() {
    return client.getWorkflowServiceStubs();
  }

  /** Who polls Tandem's task queue; asked once per session. */
  WorkerPresence workers() {
    if (workers == null) {
      workers = describeTaskQueue();
    }
    return workers;
  }

  private WorkerPresence describeTaskQueue() {
    DescribeTaskQueueRequest request =
        DescribeTaskQueueRequest.newBuilder()
            .setNamespace(namespace)
            .setTaskQueue(TaskQueue.newBuilder().setName(Names.TASK_QUEUE))
            .setTaskQueueType(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)
            .build();
    try {
      return WorkerPresence.of(
          stubs()
              .blockingStub()
              .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
              .describeTaskQueue(request)
              .getPollersList(),
          Instant.now());
    } catch (StatusRuntimeException e) {
      return switch (e.getStatus().getCode()) {
        case UNAVAILABLE, DEADLINE_EXCEEDED, UNAUTHENTICATED -> throw unreachable(e);
        case NOT_FOUND ->
            throw new CliException(
                "Temporal at "
                    + address
                    + " does not know namespace '"
                    + namespace
                    + "' ("
                    + e.getStatus().getDescription()
                    + "): check --namespace/TEMPORAL_NAMESPACE");
        // UNIMPLEMENTED (e.g. an older test server), PERMISSION_DENIED (a role without it), ...:
        // only a query can tell then.
        default -> WorkerPresence.unknown(Instant.now());
      };
    }
  }

  private void refreshWorkers() {
    try {
      workers = describeTaskQueue();
    } catch (CliException e) {
      // keep what was seen before
    }
  }

  /** Fails with the "no worker" message when no worker polled Tandem's queue recently. */
  void requireWorker() {
    if (workers().state() == WorkerPresence.State.GONE) {
      throw new NoAnswer(workers().noWorker(address));
    }
  }

  /** A query of {@code workflowId}, bounded by the timeout. */
  <T> T query(String workflowId, Supplier<T> query) {
    try {
      return bounded(query);
    } catch (RuntimeException e) {
      StatusRuntimeException s = status(e);
      if (s == null) {
        throw e;
      }
      Status.Code code = s.getStatus().getCode();
      if (code == Status.Code.DEADLINE_EXCEEDED) {
        refreshWorkers(); // the message names the pollers as they are now
        throw new NoAnswer(workers().noAnswer(address, workflowId, timeout));
      }
      if (code == Status.Code.FAILED_PRECONDITION && mentionsPollers(s)) {
        // A real server refuses a query at once when no worker polled the queue for a while.
        throw new NoAnswer(workers().noWorker(address));
      }
      if (isUnreachable(code)) {
        throw unreachable(s);
      }
      throw e;
    }
  }

  /** Any other call (a signal, a describe), bounded by the timeout. */
  <T> T call(Supplier<T> call) {
    try {
      return bounded(call);
    } catch (RuntimeException e) {
      StatusRuntimeException s = status(e);
      if (s != null && isUnreachable(s.getStatus().getCode())) {
        throw unreachable(s);
      }
      throw e;
    }
  }

  /**
   * The status of the workflow's latest run, or empty if there is no such workflow. Needs no
   * worker: Temporal answers it from its own records.
   */
  Optional<WorkflowExecutionStatus> execution(String workflowId) {
    try {
      return Optional.of(
          stubs()
              .blockingStub()
              .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
              .describeWorkflowExecution(
                  DescribeWorkflowExecutionRequest.newBuilder()
                      .setNamespace(namespace)
                      .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
                      .build())
              .getWorkflowExecutionInfo()
              .getStatus());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Optional.empty();
      }
      if (isUnreachable(e.getStatus().getCode())) {
        throw unreachable(e);
      }
      throw e;
    }
  }

  /**
   * The workflow executions visibility lists for {@code query} (a List Filter on {@code
   * WorkflowType}, {@code ExecutionStatus}, {@code WorkflowId}: what every Temporal with visibility
   * answers, Cloud included), every page within one timeout. Needs no worker. Visibility is
   * eventually consistent: a workflow started or ended a moment ago may not show the change yet (a
   * fraction of a second on one server), so a named object is always asked for by its workflow id
   * instead.
   */
  List<WorkflowExecutionInfo> list(String query) {
    Deadline deadline = Deadline.after(timeout.toMillis(), TimeUnit.MILLISECONDS);
    List<WorkflowExecutionInfo> out = new ArrayList<>();
    ByteString page = ByteString.EMPTY;
    do {
      ListWorkflowExecutionsResponse r;
      try {
        r =
            stubs()
                .blockingStub()
                .withDeadline(deadline)
                .listWorkflowExecutions(
                    ListWorkflowExecutionsRequest.newBuilder()
                        .setNamespace(namespace)
                        .setQuery(query)
                        .setPageSize(1000)
                        .setNextPageToken(page)
                        .build());
      } catch (StatusRuntimeException e) {
        if (isUnreachable(e.getStatus().getCode())) {
          throw unreachable(e);
        }
        throw new CliException(
            "Temporal at "
                + address
                + " cannot list workflows ("
                + e.getStatus().getCode()
                + ": "
                + e.getStatus().getDescription()
                + "; query: "
                + query
                + "): a server with visibility is needed (Temporal 1.20 or newer, or Cloud)");
      }
      out.addAll(r.getExecutionsList());
      page = r.getNextPageToken();
    } while (!page.isEmpty());
    return out;
  }

  private <T> T bounded(Supplier<T> call) {
    try (Context.CancellableContext ctx =
        Context.current().withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS, DEADLINES)) {
      return ctx.call(call::get);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private CliException unreachable(StatusRuntimeException e) {
    String why =
        e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED
            ? "no answer within " + Durations.format(timeout)
            : e.getMessage();
    return new CliException(
        "cannot reach Temporal at "
            + address
            + " ("
            + why
            + "): check --address/TEMPORAL_ADDRESS (is `tandem dev` running?)");
  }

  private static boolean isUnreachable(Status.Code code) {
    return code == Status.Code.UNAVAILABLE
        || code == Status.Code.DEADLINE_EXCEEDED
        || code == Status.Code.UNAUTHENTICATED
        || code == Status.Code.PERMISSION_DENIED;
  }

  private static boolean mentionsPollers(StatusRuntimeException s) {
    String d = s.getStatus().getDescription();
    return d != null && d.toLowerCase(java.util.Locale.ROOT).contains("poller");
  }

  static StatusRuntimeException status(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof StatusRuntimeException s) {
        return s;
      }
    }
    return null;
  }

  @Override
  public void close() {
    stubs().shutdownNow();
  }
}
