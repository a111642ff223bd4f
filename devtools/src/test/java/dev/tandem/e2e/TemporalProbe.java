package dev.tandem.e2e;

import dev.tandem.workflows.Names;
import dev.tandem.workflows.model.NodePhase;
import dev.tandem.workflows.model.NodeSetSnapshot;
import dev.tandem.workflows.model.NodeStatus;
import dev.tandem.workflows.node.NodeLifecycleWorkflow;
import dev.tandem.workflows.nodeset.NodeSetWorkflow;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Temporal as a scenario sees it while the worker may be dead: every query is bounded by a gRPC
 * deadline (the SDK alone retries a query for a minute when no worker answers), and a failure is an
 * exception the caller's bounded wait ({@code Await}) retries. Workflow execution states come from
 * Temporal itself and need no worker.
 */
final class TemporalProbe {
  private static final ScheduledExecutorService DEADLINES =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "crash-suite-deadlines");
            t.setDaemon(true);
            return t;
          });

  private final WorkflowClient temporal;
  private final Duration timeout;

  TemporalProbe(WorkflowClient temporal, Duration timeout) {
    this.temporal = temporal;
    this.timeout = timeout;
  }

  NodeSetSnapshot nodeSet(String name) {
    return bounded(
        () ->
            temporal
                .newWorkflowStub(NodeSetWorkflow.class, Names.nodeSetWorkflowId("default", name))
                .status());
  }

  NodeStatus node(String pod) {
    return bounded(
        () ->
            temporal
                .newWorkflowStub(NodeLifecycleWorkflow.class, Names.nodeWorkflowId("default", pod))
                .status());
  }

  // ---- lenient checks for waits: false while no worker answers ----

  /** The NodeSet workflow's own view of {@code pod} (what its planner decides from). */
  boolean nodeSetShows(String nodeSet, String pod, NodePhase phase, String rev) {
    try {
      return nodeSet(nodeSet).nodes().stream()
          .anyMatch(n -> n.pod().equals(pod) && n.phase() == phase && rev.equals(n.revision()));
    } catch (RuntimeException e) {
      return false;
    }
  }

  boolean readyWithoutHolds(String pod) {
    try {
      NodeStatus n = node(pod);
      return n.phase() == NodePhase.READY && n.holds().isEmpty();
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** How many nodes the NodeSet workflow last heard of as running jobs (-1: no answer). */
  long busyNodes(String nodeSet) {
    try {
      return nodeSet(nodeSet).nodes().stream()
          .filter(x -> x.slurmState().startsWith("alloc") || x.slurmState().startsWith("mixed"))
          .count();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /** The status of the workflow's latest run; empty if Temporal has none. */
  Optional<WorkflowExecutionStatus> execution(String workflowId) {
    try {
      return Optional.of(
          temporal
              .getWorkflowServiceStubs()
              .blockingStub()
              .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
              .describeWorkflowExecution(
                  DescribeWorkflowExecutionRequest.newBuilder()
                      .setNamespace("default")
                      .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
                      .build())
              .getWorkflowExecutionInfo()
              .getStatus());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private <T> T bounded(Callable<T> call) {
    try (Context.CancellableContext ctx =
        Context.current().withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS, DEADLINES)) {
      return ctx.call(call);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
