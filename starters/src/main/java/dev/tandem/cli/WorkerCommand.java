package dev.tandem.cli;

import dev.tandem.workers.TandemWorker;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;

/** {@code tandem worker}: runs the Tandem worker process (configured by environment variables). */
@Command(
    name = "worker",
    description =
        "Run the Tandem worker (Temporal worker, watchers, /metrics); see docs/configuration.md.",
    mixinStandardHelpOptions = true)
final class WorkerCommand implements Callable<Integer> {
  @Override
  public Integer call() throws Exception {
    TandemWorker worker = new TandemWorker(System.getenv()).start();
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
    return 0;
  }
}
