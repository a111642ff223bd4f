package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.api.workflowservice.v1.GetSystemInfoResponse;
import io.temporal.api.workflowservice.v1.QueryWorkflowRequest;
import io.temporal.api.workflowservice.v1.QueryWorkflowResponse;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * Servers that answer UNIMPLEMENTED for {@code DescribeTaskQueue} (like Temporal's bare test
 * server): the query deadline is the guard, and a real server's fast "no poller seen recently"
 * refusal of a query is reported as "no worker". Only GetSystemInfo (which every server has) and
 * QueryWorkflow are implemented here.
 */
class CliOnServersWithoutPollerListTest {
  private static Server serve(
      BiConsumer<QueryWorkflowRequest, StreamObserver<QueryWorkflowResponse>> query)
      throws Exception {
    return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(
            new WorkflowServiceGrpc.WorkflowServiceImplBase() {
              @Override
              public void getSystemInfo(
                  GetSystemInfoRequest request, StreamObserver<GetSystemInfoResponse> response) {
                response.onNext(GetSystemInfoResponse.getDefaultInstance());
                response.onCompleted();
              }

              @Override
              public void queryWorkflow(
                  QueryWorkflowRequest request, StreamObserver<QueryWorkflowResponse> response) {
                query.accept(request, response);
              }
            })
        .build()
        .start();
  }

  @Test
  void aQueryRefusedForLackOfPollersIsNoWorker() throws Exception {
    Server server =
        serve(
            (req, resp) ->
                resp.onError(
                    Status.FAILED_PRECONDITION
                        .withDescription(
                            "No poller seen for task queue recently, worker may be down.")
                        .asRuntimeException()));
    try {
      String address = "127.0.0.1:" + server.getPort();
      CliRun r = CliRun.fast("history", "gpu-a-0", "--address", address);
      assertEquals(1, r.code(), r.toString());
      assertEquals(
          "tandem: no Tandem worker is polling task queue \"tandem\" at "
              + address
              + " (last poll: not listed by this server): start one (tandem worker, or tandem"
              + " dev), or check the worker Deployment\n",
          r.err());
    } finally {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void aQueryNobodyAnswersEndsAtTheDeadline() throws Exception {
    Server server = serve((req, resp) -> {}); // never answers
    try {
      String address = "127.0.0.1:" + server.getPort();
      CliRun r = CliRun.fast("status", "gpu-a", "--address", address, "--query-timeout", "2s");
      assertEquals(1, r.code(), r.toString());
      assertEquals(
          "tandem: no answer within 2s for nodeset/default/gpu-a from Temporal at "
              + address
              + ", which cannot list the pollers of task queue \"tandem\": is a Tandem worker"
              + " running (tandem worker, or tandem dev)? A busy worker may need a longer"
              + " --query-timeout\n",
          r.err());
    } finally {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
