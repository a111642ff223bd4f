package dev.tandem.devstack.temporal;

import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A Temporal worker for {@link ProbeWorkflow} in its own JVM, so that a test can kill it with
 * SIGKILL like a crashed worker process. {@link #main} runs in the child; {@link #start} starts one
 * from a test with the test JVM's classpath.
 */
public final class ProbeWorker implements AutoCloseable {
  static final String READY = "PROBE-WORKER-READY";

  private final Process process;
  private final CountDownLatch ready = new CountDownLatch(1);
  private final StringBuffer output = new StringBuffer();

  private ProbeWorker(Process process) {
    this.process = process;
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  output.append(line).append('\n');
                  if (line.startsWith(READY)) {
                    ready.countDown();
                  }
                }
              } catch (IOException e) {
                // the process is gone
              }
            },
            "probe-worker-output");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code java -cp <this JVM's classpath> ProbeWorker address queue name}. */
  static ProbeWorker start(String address, String taskQueue, String name) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(
                List.of(
                    java,
                    "-Xmx256m",
                    "-cp",
                    System.getProperty("java.class.path"),
                    ProbeWorker.class.getName(),
                    address,
                    taskQueue,
                    name))
            .redirectErrorStream(true);
    return new ProbeWorker(pb.start());
  }

  /** Waits until the child's worker polls; fails with its output otherwise. */
  void awaitReady(Duration limit) throws InterruptedException {
    if (!ready.await(limit.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("worker not ready after " + limit + "; output:\n" + output);
    }
  }

  /** SIGKILL (what {@link Process#destroyForcibly} sends on Linux); returns the exit code. */
  int kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      throw new AssertionError("worker process did not die after SIGKILL");
    }
    return process.exitValue();
  }

  long pid() {
    return process.pid();
  }

  String output() {
    return output.toString();
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }

  /** The child: a worker with default options (sticky execution on, as in production). */
  public static void main(String[] args) throws IOException {
    String address = args[0];
    String taskQueue = args[1];
    String name = args[2];
    WorkflowServiceStubs stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(address).build());
    WorkerFactory factory = WorkerFactory.newInstance(WorkflowClient.newInstance(stubs));
    Worker worker = factory.newWorker(taskQueue);
    worker.registerWorkflowImplementationTypes(ProbeWorkflow.Impl.class);
    worker.registerActivitiesImplementations((ProbeWorkflow.Activities) item -> item + "@" + name);
    factory.start();
    System.out.println(READY + " " + name + " pid " + ProcessHandle.current().pid());
    System.out.flush();
    // Runs until killed, or until the test JVM is gone (its end of our stdin closes).
    while (System.in.read() != -1) {
      // nothing is sent on stdin
    }
    System.exit(0);
  }
}
