package dev.tandem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.devstack.temporal.LocalTemporal;
import dev.tandem.workflows.Names;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflowservice.v1.PollWorkflowTaskQueueRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A worker that polls but never answers gets the deadline message naming it; an address where
 * nothing listens, or where something accepts and never answers, is "cannot reach Temporal" within
 * seconds.
 */
class CliStuckOrUnreachableTest {
  @Test
  void aWorkerThatPollsButNeverAnswersGetsTheDeadlineMessage() throws Exception {
    try (LocalTemporal temporal = LocalTemporal.startTemporary()) {
      WorkflowServiceStubs stubs =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(temporal.address()).build());
      StuckPoller stuck = new StuckPoller(stubs);
      try {
        CliWithoutWorkerTest.startWithoutWorker(
            WorkflowClient.newInstance(stubs),
            "NodeLifecycle",
            Names.nodeWorkflowId("default", "gpu-a-0"));
        stuck.start();
        for (String[] args :
            List.of(
                new String[] {"history", "gpu-a-0"},
                new String[] {"drain", "gpu-a-0", "--reason", "x"})) {
          CliRun r =
              CliRun.fast(
                  CliRun.concat(args, "--address", temporal.address(), "--query-timeout", "2s"));
          assertEquals(1, r.code(), r.toString());
          Pattern expected =
              Pattern.compile(
                  Pattern.quote(
                          "tandem: no answer within 2s for node/default/gpu-a-0 from the Tandem"
                              + " worker polling task queue \"tandem\" at "
                              + temporal.address()
                              + " (stuck-worker@test, last poll ")
                      + "\\d+s ago"
                      + Pattern.quote(
                          "): it may be stuck or overloaded; check its log and /readyz, or retry"
                              + " with a longer --query-timeout")
                      + "\n");
          assertTrue(expected.matcher(r.err()).matches(), r.toString());
          assertEquals("", r.out(), "nothing was sent: " + r);
        }
      } finally {
        stuck.close();
        stubs.shutdownNow();
      }
    }
  }

  @Test
  void nothingListeningIsCannotReachAtOnce() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort(); // closed again: nothing listens there now
    }
    for (String cmd : List.of("status gpu-a", "history gpu-a-0", "drain gpu-a-0 --reason x")) {
      CliRun r = CliRun.fast(CliRun.concat(cmd.split(" "), "--address", "127.0.0.1:" + port));
      assertEquals(1, r.code(), r.toString());
      assertTrue(
          r.err()
              .startsWith("tandem: cannot reach Temporal at 127.0.0.1:" + port + " (UNAVAILABLE"),
          r.toString());
      assertTrue(
          r.err().endsWith("): check --address/TEMPORAL_ADDRESS (is `tandem dev` running?)\n"),
          r.toString());
    }
  }

  @Test
  void aServerThatNeverAnswersIsCannotReachAfterTheTimeout() throws Exception {
    List<Socket> accepted = new ArrayList<>();
    try (ServerSocket silent = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (!silent.isClosed()) {
                    accepted.add(silent.accept()); // keep it open, never answer
                  }
                } catch (java.io.IOException e) {
                  // closed
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      String address = "127.0.0.1:" + silent.getLocalPort();
      CliRun r = CliRun.fast("status", "gpu-a", "--address", address, "--query-timeout", "2s");
      assertEquals(1, r.code(), r.toString());
      assertEquals(
          "tandem: cannot reach Temporal at "
              + address
              + " (no answer within 2s): check --address/TEMPORAL_ADDRESS (is `tandem dev`"
              + " running?)\n",
          r.err());
    } finally {
      for (Socket s : accepted) {
        s.close();
      }
    }
  }

  /** Polls Tandem's workflow task queue as {@code stuck-worker@test} and never answers a task. */
  static final class StuckPoller implements AutoCloseable {
    private final WorkflowServiceStubs stubs;
    private volatile boolean running = true;
    private final Thread thread;

    StuckPoller(WorkflowServiceStubs stubs) {
      this.stubs = stubs;
      this.thread = new Thread(this::loop, "stuck-poller");
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    private void loop() {
      long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(2); // bounded even if never closed
      while (running && System.nanoTime() < end) {
        try {
          stubs
              .blockingStub()
              .withDeadlineAfter(3, TimeUnit.SECONDS)
              .pollWorkflowTaskQueue(
                  PollWorkflowTaskQueueRequest.newBuilder()
                      .setNamespace("default")
                      .setTaskQueue(TaskQueue.newBuilder().setName(Names.TASK_QUEUE))
                      .setIdentity("stuck-worker@test")
                      .build());
        } catch (RuntimeException e) {
          // deadline or shutdown: poll again
        }
      }
    }

    @Override
    public void close() throws InterruptedException {
      running = false;
      thread.join(10_000);
    }
  }
}
