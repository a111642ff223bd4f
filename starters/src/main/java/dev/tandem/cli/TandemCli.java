package dev.tandem.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code tandem} command. Exit codes: 0 done, 1 the operation failed (the message says why), 2
 * the command line is wrong.
 */
@Command(
    name = "tandem",
    mixinStandardHelpOptions = true,
    version = "tandem 0.1.0",
    description = "Slurm on Kubernetes, kept in step by durable Temporal workflows.",
    subcommands = {
      DrainCommand.class,
      UndrainCommand.class,
      StatusCommand.class,
      HistoryCommand.class,
      WorkerCommand.class,
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
          if (e instanceof io.grpc.StatusRuntimeException
              || e.getCause() instanceof io.grpc.StatusRuntimeException) {
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
    int code = run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
    System.exit(code);
  }
}
