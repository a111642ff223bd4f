package dev.tandem.slurm.local;

import dev.tandem.slurm.SlurmEnvFile;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Drives {@code scripts/slurm-local.sh}, the real Slurm 22.05 on 127.0.0.1 that integration tests
 * and {@code tandem dev} use: finds the script, installs and starts Slurm when it does not run, and
 * runs its subcommands with bounded waits.
 */
public final class LocalSlurmScript {
  public static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(10);
  public static final Duration START_TIMEOUT = Duration.ofMinutes(4);
  public static final Duration STOP_TIMEOUT = Duration.ofMinutes(1);

  /** What a script run printed (stdout and stderr) and returned. */
  public record Result(int exitCode, String output) {}

  /**
   * The outcome of {@link #ensureRunning}: where the env file is and whether this call started it
   * from nothing ({@code startedHere}; a Slurm of which only some daemons were started again, e.g.
   * slurmrestd, was someone else's and stays so).
   */
  public record Running(Path script, Path envFile, Map<String, String> env, boolean startedHere) {}

  private LocalSlurmScript() {}

  /**
   * Makes sure the local Slurm runs: installs it if {@code slurmctld} is missing, starts it if it
   * does not answer, refreshes the token if it runs. Throws with the script's output on failure.
   *
   * @param environment the script's environment (TANDEM_SLURM_DIR and the port bases choose the
   *     instance)
   */
  public static Running ensureRunning(Path script, Map<String, String> environment) {
    Path envFile = SlurmEnvFile.defaultPath(environment);
    Result status = run(script, environment, Duration.ofSeconds(30), "status");
    if (status.exitCode() != 0) {
      if (!Files.isExecutable(Path.of("/usr/sbin/slurmctld"))) {
        Result install = run(script, environment, INSTALL_TIMEOUT, "install");
        if (install.exitCode() != 0) {
          throw new IllegalStateException(
              "local Slurm is not installed and '"
                  + script
                  + " install' failed (exit "
                  + install.exitCode()
                  + "); run it as root on Debian 12. Output:\n"
                  + install.output());
        }
      }
    }
    // start also refreshes the token file of a running cluster (tokens last a day), and starts
    // only what is missing of a partly running one (no job cancelled, no slurmd stopped).
    Result start = run(script, environment, START_TIMEOUT, "start");
    if (start.exitCode() != 0) {
      throw new IllegalStateException(
          "local Slurm could not be started: '"
              + script
              + " start' failed (exit "
              + start.exitCode()
              + "). Output:\n"
              + start.output());
    }
    boolean started = status.exitCode() != 0 && startedFresh(start.output());
    try {
      return new Running(script, envFile, SlurmEnvFile.read(envFile), started);
    } catch (IOException e) {
      throw new IllegalStateException(
          "local Slurm runs but its env file " + envFile + " cannot be read: " + e, e);
    }
  }

  /** Whether {@code start} started every daemon anew (it says so; see slurm-local.sh). */
  static boolean startedFresh(String startOutput) {
    return startOutput.contains(FRESH_START);
  }

  /** The line {@code start} prints when nothing of the Slurm ran and it starts it all. */
  static final String FRESH_START = "slurm-local: starting in ";

  /**
   * The script: {@code -Dtandem.slurm.script}, then {@code $TANDEM_HOME/scripts}, then {@code
   * scripts/slurm-local.sh} in the working directory or up to three levels above it.
   */
  public static Path find(Map<String, String> environment) {
    String prop = System.getProperty("tandem.slurm.script");
    if (prop != null && !prop.isBlank()) {
      return Path.of(prop);
    }
    String home = environment.get("TANDEM_HOME");
    if (home != null && !home.isBlank()) {
      Path s = Path.of(home, "scripts", "slurm-local.sh");
      if (Files.isRegularFile(s)) {
        return s;
      }
    }
    Path d = Path.of("").toAbsolutePath();
    for (int i = 0; i < 4 && d != null; i++, d = d.getParent()) {
      Path s = d.resolve("scripts").resolve("slurm-local.sh");
      if (Files.isRegularFile(s)) {
        return s;
      }
    }
    throw new IllegalStateException(
        "scripts/slurm-local.sh not found above "
            + Path.of("").toAbsolutePath()
            + "; run from the Tandem checkout, set TANDEM_HOME, or -Dtandem.slurm.script=...");
  }

  /** {@link #run(Path, Map, Duration, String...)} with this process's environment. */
  public static Result run(Path script, Duration timeout, String... args) {
    return run(script, System.getenv(), timeout, args);
  }

  /**
   * Runs the script with exactly {@code environment} and a bounded wait; a timeout kills it and
   * reports exit code -1.
   */
  public static Result run(
      Path script, Map<String, String> environment, Duration timeout, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add("bash");
    cmd.add(script.toString());
    cmd.addAll(List.of(args));
    try {
      Path out = Files.createTempFile("slurm-local-", ".out");
      try {
        ProcessBuilder pb =
            new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().clear();
        pb.environment().putAll(environment);
        Process p = pb.start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly();
          return new Result(-1, Files.readString(out) + "\n(timed out after " + timeout + ")");
        }
        return new Result(p.exitValue(), Files.readString(out));
      } finally {
        Files.deleteIfExists(out);
      }
    } catch (IOException e) {
      return new Result(-1, "could not run " + cmd + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(-1, "interrupted while running " + cmd);
    }
  }
}
