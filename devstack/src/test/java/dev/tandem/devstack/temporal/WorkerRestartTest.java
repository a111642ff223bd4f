package dev.tandem.devstack.temporal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.testing.Await;
import io.grpc.Context;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A worker process killed with SIGKILL and replaced: the running workflow must go on and answer
 * queries on the new worker within seconds, although the dead worker held it on its sticky queue
 * (the real server gives a sticky task to the normal queue after the sticky schedule-to-start
 * timeout).
 */
class WorkerRestartTest {
  private static final String QUEUE = "probe";
  private static final Duration BOUND = Duration.ofSeconds(20);

  private final List<AutoCloseable> closeLast = new ArrayList<>();

  /** Times the gRPC deadlines of the test's calls; a daemon thread, never shut down. */
  private static final ScheduledExecutorService DEADLINES =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "test-deadlines");
            t.setDaemon(true);
            return t;
          });

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeLast.size() - 1; i >= 0; i--) {
      closeLast.get(i).close();
    }
  }

  @Test
  void aWorkerKilledWithSigkillIsReplacedAndTheWorkflowGoesOn() throws Exception {
    LocalTemporal temporal = LocalTemporal.startTemporary();
    closeLast.add(temporal);
    WorkflowServiceStubs stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
    closeLast.add(stubs::shutdownNow);
    WorkflowClient client = WorkflowClient.newInstance(stubs);

    ProbeWorker first = ProbeWorker.start(temporal.address(), QUEUE, "worker-1");
    closeLast.add(first);
    first.awaitReady(Duration.ofSeconds(30));

    ProbeWorkflow wf =
        client.newWorkflowStub(
            ProbeWorkflow.class,
            WorkflowOptions.newBuilder().setWorkflowId("probe-1").setTaskQueue(QUEUE).build());
    WorkflowClient.start(wf::run);
    // Two rounds of signal, activity and query on the first worker: it now holds the workflow
    // in its cache and has asked for its tasks on its sticky queue.
    wf.add("a");
    awaitDone(wf, List.of("a@worker-1"), BOUND);
    wf.add("b");
    awaitDone(wf, List.of("a@worker-1", "b@worker-1"), BOUND);

    int exit = first.kill();
    assertEquals(128 + 9, exit, "the worker must die of SIGKILL (exit 137), not exit cleanly");

    ProbeWorker second = ProbeWorker.start(temporal.address(), QUEUE, "worker-2");
    closeLast.add(second);
    second.awaitReady(Duration.ofSeconds(30));
    long since = System.nanoTime();
    wf.add("c");
    awaitDone(wf, List.of("a@worker-1", "b@worker-1", "c@worker-2"), BOUND);
    long tookMs = (System.nanoTime() - since) / 1_000_000;
    System.out.printf(
        "WorkerRestartTest: signal to answered query on the replacement worker: %d ms%n", tookMs);
    assertTrue(tookMs < BOUND.toMillis(), "took " + tookMs + " ms");

    wf.add("stop");
    Await.until(
        "the workflow to end on the replacement worker",
        BOUND,
        () -> bounded(Duration.ofSeconds(3), () -> client.fetchHistory("probe-1").getLastEvent()),
        e -> e.hasWorkflowExecutionCompletedEventAttributes());
  }

  /** Queries until the workflow reports {@code expected}; every query has a short deadline. */
  private void awaitDone(ProbeWorkflow wf, List<String> expected, Duration limit) {
    Await.until(
        "done = " + expected,
        limit,
        () -> bounded(Duration.ofSeconds(3), wf::done),
        expected::equals);
  }

  /** Runs a client call under a gRPC deadline (the SDK's retries stop at it too). */
  private <T> T bounded(Duration d, Supplier<T> call) {
    try (Context.CancellableContext ctx =
        Context.current().withDeadlineAfter(d.toMillis(), TimeUnit.MILLISECONDS, DEADLINES)) {
      return ctx.call(call::get);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
