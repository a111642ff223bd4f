package dev.tandem.workers;

import java.util.concurrent.CountDownLatch;

/** {@code java -cp ... dev.tandem.workers.WorkerMain}: the container's entry point. */
public final class WorkerMain {
  private WorkerMain() {}

  public static void main(String[] args) throws Exception {
    TandemWorker worker;
    try {
      worker = new TandemWorker(System.getenv()).start();
    } catch (ConfigException e) {
      System.err.println("tandem: configuration error: " + e.getMessage());
      System.exit(2);
      return;
    }
    runUntilShutdown(worker);
  }

  /**
   * Blocks until the JVM is asked to stop (SIGTERM, Ctrl-C), then closes the worker gracefully
   * (in-flight activities finish) before the JVM exits.
   */
  public static void runUntilShutdown(TandemWorker worker) throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  worker.close();
                  stopped.countDown();
                },
                "tandem-shutdown"));
    stopped.await();
  }
}
