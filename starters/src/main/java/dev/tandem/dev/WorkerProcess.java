package dev.tandem.dev;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The Tandem worker of the dev stack as a child JVM ({@code tandem worker}) that can die at any
 * moment and come back, as a pod would: {@code tandem dev} and the end-to-end tests run Temporal,
 * the Kubernetes API and the kubelet in their own JVM, which outlives the worker.
 *
 * <ol>
 *   <li>The child runs this JVM's classpath with a small heap and quick-start flags; its pid goes
 *       to {@code <state-dir>/worker.pid}, its output to {@code <state-dir>/worker.log}.
 *   <li>Its standard input is a pipe this JVM never writes to: when this JVM dies, however it dies,
 *       the pipe closes and the worker stops by itself ({@code --stop-when-stdin-closes}), so it
 *       never outlives its supervisor.
 *   <li>Supervised (the default), a worker that exits is started again after a back-off that
 *       doubles from 1 s to 30 s and starts over once a worker ran for a minute; each exit and
 *       restart is reported on the stack's output.
 * </ol>
 */
public final class WorkerProcess implements AutoCloseable {
  static final String MAIN = "dev.tandem.cli.TandemCli";
  static final Duration BACKOFF_INITIAL = Duration.ofSeconds(1);
  static final Duration BACKOFF_MAX = Duration.ofSeconds(30);
  static final Duration RAN_LONG_ENOUGH = Duration.ofMinutes(1);
  private static final Path SETSID = Path.of("/usr/bin/setsid");

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

  private final Path stateDir;
  private final int httpPort;
  private final Map<String, String> env;
  private final PrintWriter out;
  private final ScheduledExecutorService restarts;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private Process process;
  private OutputStream stdin;
  private long startedAt;
  private Duration backoff = BACKOFF_INITIAL;
  private ScheduledFuture<?> pendingRestart;
  private boolean supervised = true;
  private boolean closed;

  /**
   * @param stateDir pid file and log go here
   * @param httpPort the worker's /metrics and /readyz port (kept across restarts)
   * @param env the worker's complete environment
   * @param out where exits and restarts are reported (null: nowhere)
   */
  WorkerProcess(Path stateDir, int httpPort, Map<String, String> env, PrintWriter out) {
    this.stateDir = stateDir.toAbsolutePath();
    this.httpPort = httpPort;
    this.env = Map.copyOf(env);
    this.out = out;
    this.restarts =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "tandem-worker-supervisor");
              t.setDaemon(true);
              return t;
            });
  }

  public Path pidFile() {
    return stateDir.resolve("worker.pid");
  }

  public Path logFile() {
    return stateDir.resolve("worker.log");
  }

  public URI metricsUrl() {
    return URI.create("http://127.0.0.1:" + httpPort + "/metrics");
  }

  public int httpPort() {
    return httpPort;
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
    // Names the stack in the command line, so a later run can tell its own leftover worker apart.
    cmd.add("-Dtandem.dev.state-dir=" + stateDir);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(MAIN);
    cmd.add("worker");
    cmd.add("--stop-when-stdin-closes");
    return cmd;
  }

  /** Starts the worker unless one runs; returns its pid. Cancels a pending restart. */
  public synchronized long start() throws IOException {
    if (closed) {
      throw new IllegalStateException("the worker supervisor is closed");
    }
    if (process != null && process.isAlive()) {
      return process.pid();
    }
    cancelRestart();
    Files.createDirectories(stateDir);
    ProcessBuilder pb = new ProcessBuilder(command());
    pb.environment().clear();
    pb.environment().putAll(env);
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()));
    pb.redirectInput(ProcessBuilder.Redirect.PIPE);
    Process p = pb.start();
    process = p;
    stdin = p.getOutputStream();
    startedAt = System.nanoTime();
    Files.writeString(pidFile(), p.pid() + "\n");
    p.onExit().thenAccept(this::exited);
    return p.pid();
  }

  /** The running worker's pid, or -1. */
  public synchronized long pid() {
    return process != null && process.isAlive() ? process.pid() : -1;
  }

  /** On (default): an exited worker is started again after the back-off. */
  public synchronized void setSupervised(boolean on) {
    supervised = on;
    if (!on) {
      cancelRestart();
    }
  }

  /**
   * SIGKILL to the worker ({@link Process#destroyForcibly()} sends SIGKILL on Linux), waiting until
   * it is gone. Returns the pid killed, or -1 if none ran.
   */
  public long kill() throws InterruptedException {
    Process p;
    synchronized (this) {
      p = process;
    }
    if (p == null || !p.isAlive()) {
      return -1;
    }
    p.destroyForcibly();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("worker pid " + p.pid() + " still alive 30s after SIGKILL");
    }
    return p.pid();
  }

  /**
   * Waits until the worker's {@code /readyz} answers 200. Throws with the end of its log if it does
   * not within {@code limit}, or if it exits while nothing will restart it.
   */
  public void awaitReady(Duration limit) throws InterruptedException {
    long end = System.nanoTime() + limit.toNanos();
    HttpRequest req =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/readyz"))
            .timeout(Duration.ofSeconds(3))
            .build();
    String last = "no answer yet";
    while (System.nanoTime() < end) {
      synchronized (this) {
        if ((process == null || !process.isAlive()) && !supervised) {
          throw new IllegalStateException(
              "the worker is not running (" + last + "); " + logFile() + " ends with:\n" + tail());
        }
      }
      try {
        HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
        last = r.body().trim();
      } catch (IOException e) {
        last = "no answer on " + req.uri();
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException(
        "the worker is not ready after "
            + limit.toSeconds()
            + "s ("
            + last
            + "); "
            + logFile()
            + " ends with:\n"
            + tail());
  }

  /** The last lines of the worker log. */
  public String tail() {
    try {
      List<String> lines = Files.readAllLines(logFile());
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(cannot read " + logFile() + ": " + e.getMessage() + ")";
    }
  }

  private synchronized void exited(Process p) {
    if (p != process || closed) {
      return;
    }
    Duration ran = Duration.ofNanos(System.nanoTime() - startedAt);
    String how = describeExit(p.exitValue());
    if (!supervised) {
      say(
          "the worker (pid %d) %s after %s; not restarting it (supervision is off)",
          p.pid(), how, fmt(ran));
      return;
    }
    if (ran.compareTo(RAN_LONG_ENOUGH) >= 0) {
      backoff = BACKOFF_INITIAL;
    }
    Duration delay = backoff;
    backoff =
        backoff.multipliedBy(2).compareTo(BACKOFF_MAX) > 0 ? BACKOFF_MAX : backoff.multipliedBy(2);
    say(
        "the worker (pid %d) %s after %s; restarting it in %s (log: %s)",
        p.pid(), how, fmt(ran), fmt(delay), logFile());
    pendingRestart = restarts.schedule(this::restart, delay.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void restart() {
    long pid;
    long t0 = System.nanoTime();
    try {
      synchronized (this) {
        pendingRestart = null;
        if (closed || !supervised || (process != null && process.isAlive())) {
          return;
        }
        pid = start();
      }
      awaitReady(Duration.ofMinutes(2));
      say(
          "the worker is back (pid %d), ready after %s",
          pid, fmt(Duration.ofNanos(System.nanoTime() - t0)));
    } catch (IOException | RuntimeException e) {
      say("could not restart the worker: %s", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
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
      return String.format(java.util.Locale.ROOT, "%.1fs", ms / 1000.0);
    }
    return d.toMinutes() + "m" + d.toSecondsPart() + "s";
  }

  private void cancelRestart() {
    if (pendingRestart != null) {
      pendingRestart.cancel(false);
      pendingRestart = null;
    }
  }

  private void say(String format, Object... args) {
    if (out != null) {
      out.println("tandem dev: " + String.format(format, args));
      out.flush();
    }
  }

  /**
   * Stops the worker gracefully (SIGTERM: in-flight activities get their grace period), SIGKILL if
   * it is still running after {@code grace}, and removes the pid file.
   */
  public void close(Duration grace) {
    Process p;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      cancelRestart();
      p = process;
    }
    restarts.shutdownNow();
    if (p != null && p.isAlive()) {
      p.destroy();
      try {
        if (!p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
          say("the worker (pid %d) did not stop within %s; killing it", p.pid(), grace);
          p.destroyForcibly();
          p.waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
    try {
      if (stdin != null) {
        stdin.close();
      }
      Files.deleteIfExists(pidFile());
    } catch (IOException e) {
      // nothing left to do about it
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(40));
  }
}
