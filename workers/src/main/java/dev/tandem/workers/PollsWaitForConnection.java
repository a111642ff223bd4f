package dev.tandem.workers;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import java.util.Set;

/**
 * Makes the worker's task polls wait for the connection to Temporal (gRPC {@code waitForReady})
 * instead of failing at once while Temporal cannot be reached.
 *
 * <p>Why: the SDK's pollers back off after each failed poll, doubling from 100 ms up to one minute,
 * and a poll against a connection that is down fails within milliseconds. After a 30 s outage the
 * pollers were asleep for another 20 s after Temporal answered again (the fault suite measured it),
 * and after longer outages for up to a minute, during which no workflow moved: a cordon made during
 * the outage reached Slurm only then. A waiting poll instead goes out the moment the connection is
 * back, and its wait is still bounded by the poll's own deadline (the SDK's long-poll timeout, 70
 * s). Only polls wait: signals, queries and task completions keep failing fast, so their callers
 * (the watchers' bounded retries, the CLI's timeouts) behave as before. An error Temporal itself
 * answers (e.g. UNAVAILABLE while it starts) is not a connection problem and still fails the poll.
 */
final class PollsWaitForConnection implements ClientInterceptor {
  static final Set<String> POLLS =
      Set.of(
          WorkflowServiceGrpc.getPollWorkflowTaskQueueMethod().getFullMethodName(),
          WorkflowServiceGrpc.getPollActivityTaskQueueMethod().getFullMethodName(),
          WorkflowServiceGrpc.getPollNexusTaskQueueMethod().getFullMethodName());

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(
      MethodDescriptor<ReqT, RespT> method, CallOptions options, Channel next) {
    return next.newCall(
        method, POLLS.contains(method.getFullMethodName()) ? options.withWaitForReady() : options);
  }
}
