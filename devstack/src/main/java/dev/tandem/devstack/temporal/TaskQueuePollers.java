package dev.tandem.devstack.temporal;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.temporal.api.enums.v1.DescribeTaskQueueMode;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueResponse;
import io.temporal.api.workflowservice.v1.PollActivityTaskQueueRequest;
import io.temporal.api.workflowservice.v1.PollWorkflowTaskQueueRequest;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import java.time.Clock;

/**
 * Gives the local Temporal the {@code DescribeTaskQueue} answer a real server gives: the task
 * queue's pollers with their identity and last access time. The test server answers UNIMPLEMENTED,
 * so without this nobody (the Tandem CLI, the Temporal CLI's {@code task-queue describe}) could
 * tell "no worker is running" from "the worker is slow".
 *
 * <p>How. Every {@code PollWorkflowTaskQueue} and {@code PollActivityTaskQueue} passing through is
 * recorded in a {@link PollerHistory} when it starts (its request arrives) and when it ends
 * (answered, failed, or cancelled because the worker went away: a killed worker's connection closes
 * and its open polls end then). {@code DescribeTaskQueue} is answered from that history in the
 * legacy mode (the pollers; no backlog status): the enhanced mode is refused with UNIMPLEMENTED. An
 * unspecified task queue type means workflow, as on a real server.
 */
final class TaskQueuePollers implements ServerInterceptor {
  private static final String DESCRIBE =
      WorkflowServiceGrpc.getDescribeTaskQueueMethod().getFullMethodName();
  private static final String POLL_WORKFLOW =
      WorkflowServiceGrpc.getPollWorkflowTaskQueueMethod().getFullMethodName();
  private static final String POLL_ACTIVITY =
      WorkflowServiceGrpc.getPollActivityTaskQueueMethod().getFullMethodName();

  private final PollerHistory history;
  private final ServerCallHandler<DescribeTaskQueueRequest, DescribeTaskQueueResponse> describe =
      ServerCalls.asyncUnaryCall(
          (request, response) -> {
            try {
              response.onNext(describe(request));
              response.onCompleted();
            } catch (RuntimeException e) {
              response.onError(e);
            }
          });

  TaskQueuePollers(Clock clock) {
    this.history = new PollerHistory(clock);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    String method = call.getMethodDescriptor().getFullMethodName();
    if (method.equals(DESCRIBE)) {
      return (ServerCall.Listener<Q>) ((ServerCallHandler) describe).startCall(call, headers);
    }
    if (!method.equals(POLL_WORKFLOW) && !method.equals(POLL_ACTIVITY)) {
      return next.startCall(call, headers);
    }
    Poll poll = new Poll();
    ServerCall<Q, R> recordingEnd =
        new SimpleForwardingServerCall<>(call) {
          @Override
          public void close(Status status, Metadata trailers) {
            poll.ended();
            super.close(status, trailers);
          }
        };
    return new SimpleForwardingServerCallListener<>(next.startCall(recordingEnd, headers)) {
      @Override
      public void onMessage(Q message) {
        poll.started(message);
        super.onMessage(message);
      }

      @Override
      public void onCancel() {
        poll.ended();
        super.onCancel();
      }
    };
  }

  DescribeTaskQueueResponse describe(DescribeTaskQueueRequest r) {
    if (r.getNamespace().isEmpty()) {
      throw invalid("Namespace not set on request.");
    }
    if (r.getTaskQueue().getName().isEmpty()) {
      throw invalid("TaskQueue is not set on request.");
    }
    if (r.getApiMode() == DescribeTaskQueueMode.DESCRIBE_TASK_QUEUE_MODE_ENHANCED) {
      throw Status.UNIMPLEMENTED
          .withDescription(
              "the local Temporal answers DescribeTaskQueue in the legacy mode only (pollers)")
          .asRuntimeException();
    }
    TaskQueueType type =
        r.getTaskQueueType() == TaskQueueType.TASK_QUEUE_TYPE_UNSPECIFIED
            ? TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW
            : r.getTaskQueueType();
    return DescribeTaskQueueResponse.newBuilder()
        .addAllPollers(
            history.pollers(
                new PollerHistory.Queue(r.getNamespace(), r.getTaskQueue().getName(), type)))
        .build();
  }

  private static RuntimeException invalid(String message) {
    return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
  }

  /** One poll call: recorded at its start and, once, at its end. */
  private final class Poll {
    private PollerHistory.Queue queue;
    private String identity;
    private boolean ended;

    synchronized void started(Object request) {
      if (request instanceof PollWorkflowTaskQueueRequest w) {
        queue = queue(w.getNamespace(), w.getTaskQueue().getName(), true);
        identity = w.getIdentity();
      } else if (request instanceof PollActivityTaskQueueRequest a) {
        queue = queue(a.getNamespace(), a.getTaskQueue().getName(), false);
        identity = a.getIdentity();
      }
      if (queue != null) {
        history.touch(queue, identity);
      }
    }

    synchronized void ended() {
      if (queue != null && !ended) {
        ended = true;
        history.touch(queue, identity);
      }
    }
  }

  private static PollerHistory.Queue queue(String namespace, String name, boolean workflow) {
    return new PollerHistory.Queue(
        namespace,
        name,
        workflow ? TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW : TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY);
  }
}
