package dev.tandem.devstack.temporal;

import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.temporal.api.workflowservice.v1.RespondWorkflowTaskCompletedRequest;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;

/**
 * Makes the local Temporal (the Java test server) never route a workflow's tasks or queries to a
 * worker's sticky queue, so that a worker killed at any moment leaves nothing behind that only it
 * could pick up.
 *
 * <p>Why. A worker that completes a workflow task asks the server to send that workflow's next
 * tasks to its own "sticky" queue (it keeps the workflow in memory and then needs only the new
 * events). A real Temporal server gives up on a sticky queue nobody polls after the sticky
 * schedule-to-start timeout (5 s by default) and sends the task, with the full history, to the
 * normal queue; it also drops stickiness when a query cannot reach the sticky worker. The test
 * server (1.38) has neither: once a workflow is sticky, every later workflow task and every query
 * goes to that worker's sticky queue. When the worker dies ({@code kill -9}), nothing ever polls
 * that queue again and nothing times the task out, so the workflow is frozen for good.
 *
 * <p>What. The only request that carries sticky attributes is {@code RespondWorkflowTaskCompleted};
 * this interceptor removes them before the test server sees the request. The server then keeps
 * every execution on its normal task queue and sends every workflow task and query with the full
 * history, which the SDK replays (it already has to: that is what a real server sends after a
 * sticky timeout, or after a worker's cache evicted the workflow). The workers' sticky pollers
 * simply never receive anything.
 *
 * <p>Why not a faithful sticky timeout. The test server keeps its task queues and the "a workflow
 * task is scheduled" state inside private state machines; moving an already queued task back to the
 * normal queue would mean reaching into them (reflection on internals that change between releases)
 * or failing tasks on the dead worker's behalf, which adds events a real server does not write.
 * Never being sticky is simple, cannot freeze, and changes only performance: each workflow task
 * replays the workflow's history (bounded by Tandem's continue-as-new at {@code
 * TANDEM_MAX_HISTORY_EVENTS}). Production workers are unchanged and stay sticky on a real server.
 */
final class StickyQueueBypass implements ServerInterceptor {
  private static final String COMPLETED =
      WorkflowServiceGrpc.getRespondWorkflowTaskCompletedMethod().getFullMethodName();

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    ServerCall.Listener<Q> listener = next.startCall(call, headers);
    if (!call.getMethodDescriptor().getFullMethodName().equals(COMPLETED)) {
      return listener;
    }
    return new SimpleForwardingServerCallListener<>(listener) {
      @Override
      @SuppressWarnings("unchecked")
      public void onMessage(Q message) {
        super.onMessage((Q) withoutSticky((RespondWorkflowTaskCompletedRequest) message));
      }
    };
  }

  static RespondWorkflowTaskCompletedRequest withoutSticky(RespondWorkflowTaskCompletedRequest r) {
    return r.hasStickyAttributes() ? r.toBuilder().clearStickyAttributes().build() : r;
  }
}
