package dev.tandem.cli;

import dev.tandem.k8s.KubeClients;
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
    version = "tandem " + KubeClients.VERSION,
    description = "Slurm on Kubernetes, kept in step by durable Temporal workflows.",
    subcommands = {
      DrainCommand.class,
      UndrainCommand.class,
      StatusCommand.class,
      HistoryCommand.class,
      RemediateCommand.class,
      RemediationsCommand.class,
      PodsCommand.class,
      TopologyCommand.class,
      WorkerCommand.class
    })
public final class TandemCli implements Runnable {
  /**
   * Where {@code tandem dev} keeps its state; the kubeconfig there is the last resort of commands
   * that read Kubernetes (see {@link PodLookup#kubernetes}).
   */
  public static final String DEV_STATE_DIR = "/var/tmp/tandem-dev";

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Runs a command line; returns the exit code (for tests and {@link #main}). */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cli = commandLine();
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

  /**
   * The command tree: the operator commands, then those of every {@link CliExtension} on the class
   * path (the dev stack's {@code dev} and {@code bench}), then {@code help}. Built before the
   * output and handlers are set: picocli applies those only to the subcommands present.
   */
  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new TandemCli());
    for (CliExtension extension : CliExtension.installed()) {
      for (Object command : extension.commands()) {
        cli.addSubcommand(command);
      }
    }
    cli.addSubcommand(new CommandLine.HelpCommand());
    return cli;
  }

  public static void main(String[] args) {
    configureLogging(args);
    int code = run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
    System.exit(code);
  }

  /**
   * Sets the properties logback.xml reads, before anything logs. Short commands log warnings only;
   * {@code worker} logs at TANDEM_LOG_LEVEL (default INFO); an extension's command may choose its
   * own (e.g. {@code dev} logs to a file in its state dir and keeps the terminal for progress).
   * Done here, not in the command, because logback reads its configuration once, on the first
   * logger.
   */
  static void configureLogging(String[] args) {
    String command = args.length > 0 ? args[0] : "";
    for (CliExtension extension : CliExtension.installed()) {
      if (extension.configureLogging(args)) {
        return;
      }
    }
    boolean explicit = System.getenv("TANDEM_LOG_LEVEL") != null;
    if (!command.equals("worker") && !explicit) {
      System.setProperty("tandem.log.level", "WARN");
    }
  }
}
