package dev.tandem.devstack.temporal;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.internal.testservice.TestServicesStarter;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.concurrent.TimeUnit;

/**
 * Temporal's Java test server as the local Temporal of {@code tandem dev}, bound to 127.0.0.1 only.
 *
 * <p>{@code TestServer.createPortBoundServer} binds every interface, so the same services are
 * served here through a gRPC server bound to the loopback address. Time runs normally (skipping is
 * locked): this is a server for people and real processes, not for unit tests.
 *
 * <p>The workflow service goes through {@link StickyQueueBypass}, so workflows never stick to a
 * worker that may die (the test server has no sticky schedule-to-start timeout): a restarted or
 * replacement worker picks up every running workflow at once. {@link TaskQueuePollers} answers
 * {@code DescribeTaskQueue} with the task queue's pollers, as a real server does (the test server
 * does not implement it), so clients can tell that no worker is running.
 *
 * <p>The test server's log of time-skipping lock events is kept short ({@link BoundedLockLog}): it
 * grows with every task and slows every timer down the longer the server runs.
 *
 * <p>What it cannot do: list workflows, schedules, the Temporal UI (docs/architecture.md, "The
 * local Temporal"). Everything is in memory: stopping it forgets every workflow.
 */
public final class LocalTemporal implements AutoCloseable {
  private final TestServicesStarter services;
  private final Server server;

  private LocalTemporal(TestServicesStarter services, Server server) {
    this.services = services;
    this.server = server;
  }

  /** Starts on {@code 127.0.0.1:port} (0 picks a free port), without sticky queues. */
  public static LocalTemporal start(int port) throws IOException {
    return start(port, false);
  }

  /**
   * Starts on {@code 127.0.0.1:port}. With {@code sticky} the workers' sticky queues are kept, as
   * on a real server: a workflow's next task goes to the worker that holds it in memory and carries
   * only the new events. Only for a stack whose worker is never killed (the fleet benchmark, which
   * measures the worker as it runs against a real server): the test server has no sticky
   * schedule-to-start timeout, so a dead worker's workflows would wait on its sticky queue forever.
   */
  public static LocalTemporal start(int port, boolean sticky) throws IOException {
    TestServicesStarter services = new TestServicesStarter(true, 0);
    BoundedLockLog.install(services); // else the server slows down the longer it runs
    NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port));
    for (BindableService s : services.getServices()) {
      if (s == services.getWorkflowService()) {
        TaskQueuePollers pollers = new TaskQueuePollers(Clock.systemUTC());
        b.addService(
            sticky
                ? ServerInterceptors.intercept(s, pollers)
                : ServerInterceptors.intercept(s, new StickyQueueBypass(), pollers));
      } else {
        b.addService(s);
      }
    }
    Server server;
    try {
      server = b.build().start();
    } catch (IOException e) {
      services.close();
      throw new IOException(
          "cannot listen on 127.0.0.1:" + port + " for Temporal (is another server running?)", e);
    }
    return new LocalTemporal(services, server);
  }

  /** The test server's services, for tests of what this class changes in them. */
  TestServicesStarter services() {
    return services;
  }

  public int port() {
    return server.getPort();
  }

  /** {@code 127.0.0.1:<port>}, the value for {@code TEMPORAL_ADDRESS} and {@code --address}. */
  public String address() {
    return "127.0.0.1:" + port();
  }

  @Override
  public void close() {
    server.shutdownNow();
    try {
      // Calls still open (long polls) end first; the services' schedulers are closed after them.
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    services.close();
  }
}
