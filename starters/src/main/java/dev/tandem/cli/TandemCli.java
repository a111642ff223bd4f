package dev.tandem.cli;

import dev.tandem.k8s.KubeClients;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code tandem} command. Exit codes: 0 done, 1 the operation failed (the message says why), 2
 * the command line is wrong.
 */
@Command(
    name = "tandem",
    mixinStandardHelpOptions = true,
    version = "tandem " + KubeClients.VERSION,
    description = "Slurm on Kubernetes, kept in step by durable Temporal workflows.",
    subcommands = {
      DrainCommand.class,
      UndrainCommand.class,
      StatusCommand.class,
      HistoryCommand.class,
      PodsCommand.class,
      WorkerCommand.class,
      DevCommand.class,
      BenchCommand.class,
      CommandLine.HelpCommand.class
    })
public final class TandemCli implements Runnable {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Runs a command line; returns the exit code (for tests and {@link #main}). */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cli = new CommandLine(new TandemCli());
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          if (e instanceof CliException) {
            cmd.getErr().println("tandem: " + e.getMessage());
            cmd.getErr().flush();
            return 1;
          }
          if (e instanceof dev.tandem.workers.ConfigException) {
            cmd.getErr().println("tandem: configuration error: " + e.getMessage());
            cmd.getErr().flush();
            return 2;
          }
          if (NodeLookup.unreachable(e)) {
            cmd.getErr()
                .println(
                    "tandem: cannot reach Temporal ("
                        + e.getMessage()
                        + "); check --address/TEMPORAL_ADDRESS (is `tandem dev` running?)");
            cmd.getErr().flush();
            return 1;
          }
          throw e;
        });
    int code = cli.execute(args);
    out.flush();
    err.flush();
    return code;
  }

  public static void main(String[] args) {
    configureLogging(args);
    int code = run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
    System.exit(code);
  }

  /**
   * Sets the properties logback.xml reads, before anything logs. Short commands log warnings only;
   * {@code dev} logs to a file in its state dir and keeps the terminal for progress; {@code worker}
   * logs at TANDEM_LOG_LEVEL (default INFO). Done here, not in the command, because logback reads
   * its configuration once, on the first logger.
   */
  static void configureLogging(String[] args) {
    String command = args.length > 0 ? args[0] : "";
    boolean explicit = System.getenv("TANDEM_LOG_LEVEL") != null;
    if (command.equals("dev")) {
      String dir = DevCommand.DEFAULT_STATE_DIR;
      for (int i = 1; i < args.length; i++) {
        if (args[i].equals("--state-dir") && i + 1 < args.length) {
          dir = args[i + 1];
        } else if (args[i].startsWith("--state-dir=")) {
          dir = args[i].substring("--state-dir=".length());
        }
      }
      try {
        Files.createDirectories(Path.of(dir));
        System.setProperty("tandem.log.file", Path.of(dir, "tandem.log").toString());
        System.setProperty("tandem.log.console", "WARN");
      } catch (java.io.IOException | RuntimeException e) {
        // The command itself reports an unusable state dir; keep logging on the terminal.
      }
    } else if (!command.equals("worker") && !explicit) {
      System.setProperty("tandem.log.level", "WARN");
    }
  }
}
