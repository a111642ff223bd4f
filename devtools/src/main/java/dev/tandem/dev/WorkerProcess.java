package dev.tandem.dev;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 *   <li>The child runs as {@link WorkerLaunch} says: this JVM's classpath, a small heap and
 *       quick-start flags, its pid in {@code <state-dir>/worker.pid}, its output in {@code
 *       <state-dir>/worker.log}.
 *   <li>Its standard input is a pipe this JVM never writes to: when this JVM dies, however it dies,
 *       the pipe closes and the worker stops by itself ({@code --stop-when-stdin-closes}), so it
 *       never outlives its supervisor.
 *   <li>Supervised (the default), a worker that exits is started again after a back-off that
 *       doubles from 1 s to 30 s and starts over once a worker ran for a minute; each exit and
 *       restart is reported on the stack's output.
 * </ol>
 */
public final class WorkerProcess implements AutoCloseable {
  static final Duration BACKOFF_INITIAL = Duration.ofSeconds(1);
  static final Duration BACKOFF_MAX = Duration.ofSeconds(30);
  static final Duration RAN_LONG_ENOUGH = Duration.ofMinutes(1);
  static final Duration RESTART_READY_LIMIT = Duration.ofMinutes(2);

  private final WorkerLaunch launch;
  private final Readyz readyz;
  private final PrintWriter out;
  private final ScheduledExecutorService restarts;
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
    this.launch = new WorkerLaunch(stateDir, httpPort, env);
    this.readyz = new Readyz(launch.readyzUrl());
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
    return launch.pidFile();
  }

  public Path logFile() {
    return launch.logFile();
  }

  public URI metricsUrl() {
    return launch.metricsUrl();
  }

  public int httpPort() {
    return launch.httpPort();
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
    Files.createDirectories(launch.stateDir());
    ProcessBuilder pb = new ProcessBuilder(launch.command());
    pb.environment().clear();
    pb.environment().putAll(launch.env());
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()));
    pb.redirectInput(ProcessBuilder.Redirect.PIPE);
    Process p = pb.start();
    process = p;
    closeQuietly(stdin); // the previous worker's pipe
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
    while (System.nanoTime() < end) {
      synchronized (this) {
        if ((process == null || !process.isAlive()) && !supervised) {
          throw new IllegalStateException(
              "the worker is not running ("
                  + readyz.lastAnswer()
                  + "); "
                  + logFile()
                  + " ends with:\n"
                  + launch.tail());
        }
      }
      if (readyz.ready()) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException(
        "the worker is not ready after "
            + limit.toSeconds()
            + "s ("
            + readyz.lastAnswer()
            + "); "
            + logFile()
            + " ends with:\n"
            + launch.tail());
  }

  private synchronized void exited(Process p) {
    if (p != process || closed) {
      return;
    }
    Duration ran = Duration.ofNanos(System.nanoTime() - startedAt);
    String how = WorkerLaunch.describeExit(p.exitValue());
    if (!supervised) {
      say(
          "the worker (pid %d) %s after %s; not restarting it (supervision is off)",
          p.pid(), how, WorkerLaunch.fmt(ran));
      return;
    }
    if (ran.compareTo(RAN_LONG_ENOUGH) >= 0) {
      backoff = BACKOFF_INITIAL;
    }
    scheduleRestart(
        String.format("the worker (pid %d) %s after %s", p.pid(), how, WorkerLaunch.fmt(ran)));
  }

  /** Says what happened and when the next start is, then schedules it (doubling the back-off). */
  private synchronized void scheduleRestart(String what) {
    Duration delay = backoff;
    backoff =
        backoff.multipliedBy(2).compareTo(BACKOFF_MAX) > 0 ? BACKOFF_MAX : backoff.multipliedBy(2);
    say("%s; restarting it in %s (log: %s)", what, WorkerLaunch.fmt(delay), logFile());
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
      // Watch this very process only: if it dies too, its exit schedules the next attempt, which
      // must not wait behind this loop on the single supervisor thread.
      long end = t0 + RESTART_READY_LIMIT.toNanos();
      Process p = processOf(pid);
      while (p != null && p.isAlive() && System.nanoTime() < end) {
        if (readyz.ready()) {
          say(
              "the worker is back (pid %d), ready after %s",
              pid, WorkerLaunch.fmt(Duration.ofNanos(System.nanoTime() - t0)));
          return;
        }
        Thread.sleep(100);
      }
      if (p != null && p.isAlive()) {
        say("the restarted worker (pid %d) is not ready yet (%s)", pid, readyz.lastAnswer());
      }
    } catch (IOException | RuntimeException e) {
      synchronized (this) {
        if (!closed && supervised) {
          scheduleRestart("could not start the worker (" + e.getMessage() + ")");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private synchronized Process processOf(long pid) {
    return process != null && process.pid() == pid ? process : null;
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
    closeQuietly(stdin);
    try {
      Files.deleteIfExists(pidFile());
    } catch (IOException e) {
      // nothing left to do about it
    }
  }

  private static void closeQuietly(OutputStream s) {
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        // a pipe to a dead process
      }
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(40));
  }
}
