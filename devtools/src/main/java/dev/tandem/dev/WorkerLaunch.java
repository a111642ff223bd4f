package dev.tandem.dev;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How the dev stack's worker JVM is started and where its files are: {@code tandem worker} on this
 * JVM's classpath with a small heap and quick-start flags, its pid in {@code
 * <state-dir>/worker.pid} and its output in {@code <state-dir>/worker.log}, /metrics and /readyz on
 * {@code httpPort}.
 *
 * @param stateDir the stack's state dir (absolute)
 * @param httpPort the worker's /metrics and /readyz port, kept across restarts
 * @param env the worker's complete environment
 */
record WorkerLaunch(Path stateDir, int httpPort, Map<String, String> env) {
  static final String MAIN = "dev.tandem.cli.TandemCli";

  /**
   * Quick start (C1 only: a worker waits on I/O, not on CPU), bounded memory, and a clean exit on
   * out-of-memory so the supervisor restarts it. {@code TANDEM_WORKER_JAVA_OPTS} replaces them.
   */
  static final List<String> JVM_OPTIONS =
      List.of(
          "-XX:TieredStopAtLevel=1",
          "-XX:+UseSerialGC",
          "-Xms64m",
          "-Xmx512m",
          "-Xss512k",
          "-XX:+ExitOnOutOfMemoryError");

  private static final Path SETSID = Path.of("/usr/bin/setsid");

  WorkerLaunch {
    stateDir = stateDir.toAbsolutePath();
    env = Map.copyOf(env);
  }

  Path pidFile() {
    return stateDir.resolve("worker.pid");
  }

  Path logFile() {
    return stateDir.resolve("worker.log");
  }

  URI metricsUrl() {
    return URI.create("http://127.0.0.1:" + httpPort + "/metrics");
  }

  URI readyzUrl() {
    return URI.create("http://127.0.0.1:" + httpPort + "/readyz");
  }

  /** Marks the worker's command line with its stack, so a later run can tell its leftover apart. */
  String stateDirMark() {
    return "-Dtandem.dev.state-dir=" + stateDir;
  }

  /**
   * The argv of the worker JVM, under {@code setsid} where it exists: in a session of its own the
   * worker does not get the terminal's Ctrl-C, so {@code tandem dev} stops it in order (gracefully,
   * first) instead of seeing it die and restarting it. setsid execs, so the pid stays the JVM's.
   */
  List<String> command() {
    List<String> cmd = new ArrayList<>();
    if (Files.isExecutable(SETSID)) {
      cmd.add(SETSID.toString());
    }
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    String opts = env.get("TANDEM_WORKER_JAVA_OPTS");
    cmd.addAll(opts == null || opts.isBlank() ? JVM_OPTIONS : List.of(opts.trim().split("\\s+")));
    cmd.add(stateDirMark());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(MAIN);
    cmd.add("worker");
    cmd.add("--stop-when-stdin-closes");
    return cmd;
  }

  /** The last lines of the worker log. */
  String tail() {
    try {
      List<String> lines = Files.readAllLines(logFile());
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(cannot read " + logFile() + ": " + e.getMessage() + ")";
    }
  }

  /** How a worker ended, from its exit value (the JDK reports death by signal N as 128+N). */
  static String describeExit(int code) {
    return switch (code) {
      case 0 -> "exited";
      case 128 + 9 -> "was killed (SIGKILL)";
      case 128 + 15 -> "was stopped (SIGTERM)";
      default ->
          code > 128 && code < 128 + 65
              ? "was killed by signal " + (code - 128)
              : "exited with code " + code;
    };
  }

  /** {@code 850ms}, {@code 4.2s}, {@code 2m13s}. */
  static String fmt(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + "ms";
    }
    if (ms < 60_000) {
      return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
    }
    return d.toMinutes() + "m" + d.toSecondsPart() + "s";
  }
}
