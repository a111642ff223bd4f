package dev.tandem.cli;

import dev.tandem.workers.TandemWorker;
import dev.tandem.workers.WorkerMain;
import java.util.concurrent.Callable;
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
    WorkerMain.runUntilShutdown(new TandemWorker(System.getenv()).start());
    return 0;
  }
}
