package dev.tandem.devstack.kubelet;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * Runs the command as a real OS process: stdin from /dev/null, stdout and stderr appended to the
 * spec's log file (a file, not a pipe, so an unread pipe can never block the process). A log file
 * over {@link #MAX_LOG_BYTES} is truncated when the container (re)starts, which bounds disk use.
 */
public final class OsProcessLauncher implements ProcessLauncher {
  static final long MAX_LOG_BYTES = 10L * 1024 * 1024;

  @Override
  public RunningProcess launch(ProcessSpec spec) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(spec.command());
    pb.environment().putAll(spec.env());
    pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    if (spec.logFile() == null) {
      pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
      pb.redirectError(ProcessBuilder.Redirect.DISCARD);
    } else {
      Path log = spec.logFile();
      Files.createDirectories(log.toAbsolutePath().getParent());
      if (Files.exists(log) && Files.size(log) > MAX_LOG_BYTES) {
        Files.writeString(log, "");
      }
      pb.redirectErrorStream(true);
      pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    }
    Process p = pb.start();
    CompletableFuture<Integer> exit = p.onExit().thenApply(Process::exitValue);
    return new RunningProcess() {
      @Override
      public long pid() {
        return p.pid();
      }

      @Override
      public CompletableFuture<Integer> exit() {
        return exit;
      }

      @Override
      public void terminate() {
        p.destroy();
      }

      @Override
      public void kill() {
        p.destroyForcibly();
      }
    };
  }
}
