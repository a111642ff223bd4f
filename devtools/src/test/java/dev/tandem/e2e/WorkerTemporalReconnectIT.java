package dev.tandem.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.uber.m3.tally.NoopScope;
import dev.tandem.devstack.faults.TcpProxy;
import dev.tandem.devstack.temporal.LocalTemporal;
import dev.tandem.workers.TandemConfig;
import dev.tandem.workers.TemporalConnection;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * After Temporal could not be reached for a while, a worker connected the way Tandem connects
 * ({@link TemporalConnection}) takes work again within seconds of Temporal answering, not when the
 * SDK's poll back-off (up to a minute) runs out. Temporal (the local one) stays up; the worker
 * reaches it through a proxy that refuses connections for {@link #DOWN}.
 *
 * <p>Without waiting polls, the pollers failed every poll at once during the outage, and after 14 s
 * of it they slept about 12 s more before polling again (the fault suite's Temporal case: 21.7 s
 * after a 30 s outage).
 */
class WorkerTemporalReconnectIT {
  private static final String QUEUE = "reconnect-test";
  private static final Duration DOWN = Duration.ofSeconds(14);

  /** Reconnect (at least every 2 s) plus one workflow task, with room for a loaded machine. */
  private static final Duration BACK_WITHIN = Duration.ofSeconds(6);

  @WorkflowInterface
  public interface Echo {
    @WorkflowMethod
    String echo(String s);
  }

  public static class EchoImpl implements Echo {
    @Override
    public String echo(String s) {
      return s;
    }
  }

  @Test
  void aWorkerTakesWorkWithinSecondsOfTemporalAnsweringAgain() throws Exception {
    try (LocalTemporal temporal = LocalTemporal.startTemporary();
        TcpProxy proxy = TcpProxy.start("127.0.0.1", temporal.port(), 0)) {
      WorkflowServiceStubs workerSide =
          TemporalConnection.connect(
              new TandemConfig.Temporal(
                  proxy.address(), "default", null, null, null, null, false, null),
              new NoopScope());
      WorkflowServiceStubs testSide =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
      WorkerFactory factory =
          WorkerFactory.newInstance(
              WorkflowClient.newInstance(
                  workerSide, WorkflowClientOptions.newBuilder().setNamespace("default").build()));
      try {
        factory.newWorker(QUEUE).registerWorkflowImplementationTypes(EchoImpl.class);
        factory.start();
        WorkflowClient client =
            WorkflowClient.newInstance(
                testSide, WorkflowClientOptions.newBuilder().setNamespace("default").build());
        assertEquals("before", echo(client, "before", Duration.ofSeconds(30)));

        proxy.refuse();
        Thread.sleep(DOWN.toMillis());
        proxy.pass();
        long t0 = System.nanoTime();
        assertEquals("after", echo(client, "after", Duration.ofSeconds(90)));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.printf(
            "worker took work again %d ms after Temporal answered again (down %d s)%n",
            ms, DOWN.toSeconds());
        assertTrue(
            ms < BACK_WITHIN.toMillis(),
            "the worker took work only " + ms + " ms after Temporal answered again");
      } finally {
        factory.shutdownNow();
        factory.awaitTermination(10, TimeUnit.SECONDS);
        workerSide.shutdownNow();
        testSide.shutdownNow();
      }
    }
  }

  private static String echo(WorkflowClient client, String s, Duration limit) throws Exception {
    Echo stub =
        client.newWorkflowStub(
            Echo.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(QUEUE)
                .setWorkflowId("echo-" + s)
                .setWorkflowExecutionTimeout(limit)
                .build());
    return WorkflowClient.execute(stub::echo, s).get(limit.toMillis(), TimeUnit.MILLISECONDS);
  }
}
