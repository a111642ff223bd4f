package dev.tandem.cli;

import dev.tandem.workers.TandemWorker;
import dev.tandem.workers.WorkerMain;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code tandem worker}: runs the Tandem worker process (configured by environment variables). */
@Command(
    name = "worker",
    description =
        "Run the Tandem worker (Temporal worker, watchers, /metrics); see docs/configuration.md.",
    mixinStandardHelpOptions = true)
final class WorkerCommand implements Callable<Integer> {
  @Option(
      names = "--stop-when-stdin-closes",
      description =
          "stop gracefully when standard input reaches its end: for a supervisor that keeps a pipe"
              + " open (as `tandem dev` does), so the worker never outlives it")
  boolean stopWhenStdinCloses;

  @Override
  public Integer call() throws Exception {
    if (stopWhenStdinCloses) {
      watchStdin(System.in);
    }
    WorkerMain.runUntilShutdown(new TandemWorker(System.getenv()).start());
    return 0;
  }

  /**
   * The write end of the pipe closes when the supervisor exits, however it ends (even SIGKILL): the
   * kernel closes its files. Then this process stops as on SIGTERM (graceful shutdown hook).
   */
  static void watchStdin(InputStream in) {
    Thread t =
        new Thread(
            () -> {
              try {
                byte[] buf = new byte[256];
                while (in.read(buf) >= 0) {
                  // the supervisor never writes; anything read is ignored
                }
              } catch (IOException e) {
                // a broken pipe is the same news as end of file
              }
              LoggerFactory.getLogger(WorkerCommand.class)
                  .warn("standard input closed: the supervising process is gone; stopping");
              System.exit(0);
            },
            "tandem-stdin-watch");
    t.setDaemon(true);
    t.start();
  }
}
