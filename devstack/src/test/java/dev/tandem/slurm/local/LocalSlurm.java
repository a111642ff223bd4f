package dev.tandem.slurm.local;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmClients;
import dev.tandem.slurm.SlurmEnvFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real local Slurm of {@code scripts/slurm-local.sh} (through {@link LocalSlurmScript}), for
 * the integration tests that talk to a real slurmrestd: the Slurm contract suite's real target and
 * the activities against Slurm.
 *
 * <p>{@link #get()} reads the env file ({@code $TANDEM_SLURM_DIR/slurm.env}, default {@code
 * /var/tmp/tandem-slurm}). If Slurm is not running it installs (when missing) and starts it with
 * the script, and stops it at JVM exit only if it started it; so {@code ./mvnw verify} works alone
 * and in CI (where {@code .ci/run} starts Slurm first). If Slurm cannot be installed or started,
 * {@link #get()} throws with the script's output: integration tests FAIL, they never skip.
 */
public final class LocalSlurm {
  private static final Duration NODE_TIMEOUT = Duration.ofMinutes(1);

  private static LocalSlurm instance;

  private final Path script;
  private final Path dir;
  private final Map<String, String> env;

  private LocalSlurm(Path script, Path dir, Map<String, String> env) {
    this.script = script;
    this.dir = dir;
    this.env = env;
  }

  /** The running local Slurm, started if needed (once per JVM). */
  public static synchronized LocalSlurm get() {
    if (instance == null) {
      instance = ensureRunning();
    }
    return instance;
  }

  private static LocalSlurm ensureRunning() {
    Path script = LocalSlurmScript.find(System.getenv());
    LocalSlurmScript.Running r = LocalSlurmScript.ensureRunning(script, System.getenv());
    if (r.startedHere()) {
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> run(script, LocalSlurmScript.STOP_TIMEOUT, "stop"), "local-slurm-stop"));
    }
    return new LocalSlurm(script, r.envFile().getParent(), r.env());
  }

  /** {@code KEY=value} lines, see {@link SlurmEnvFile#read}. */
  public static Map<String, String> readEnvFile(Path file) throws IOException {
    return SlurmEnvFile.read(file);
  }

  /** The env file's keys (SLURM_REST_URL, SLURM_TOKEN_FILE, SLURM_CONF, ...). */
  public Map<String, String> env() {
    return env;
  }

  public Path dir() {
    return dir;
  }

  public Path script() {
    return script;
  }

  /** Client configuration from the env file (minted tokens from the JWT key). */
  public SlurmClientConfig config() {
    return SlurmClientConfig.fromEnv(env);
  }

  /** A new client (version detected from the server); close it after use. */
  public SlurmClient client() {
    return SlurmClients.create(config());
  }

  /** The pool node names declared for {@code prefix} in TANDEM_SLURM_POOLS. */
  public List<String> pool(String prefix) {
    List<String> out = new ArrayList<>();
    for (String entry : env.getOrDefault("TANDEM_SLURM_POOLS", "").split(",")) {
      String[] pc = entry.trim().split(":");
      if (pc.length == 2 && pc[0].equals(prefix)) {
        int n = Integer.parseInt(pc[1]);
        for (int i = 0; i < n; i++) {
          out.add(prefix + "-" + i);
        }
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          "no pool '" + prefix + "' in TANDEM_SLURM_POOLS=" + env.get("TANDEM_SLURM_POOLS"));
    }
    return out;
  }

  /** Starts a pool node's slurmd and waits until it is registered. */
  public void nodeUp(String name) {
    check(run(script, NODE_TIMEOUT, "node-up", name), "node-up " + name);
  }

  /** Stops a pool node's slurmd and returns it to State=FUTURE. */
  public void nodeDown(String name) {
    check(run(script, NODE_TIMEOUT, "node-down", name), "node-down " + name);
  }

  /** {@code slurm-local.sh dyn-up NAME CONF}: a dynamic node, registered when this returns. */
  public void dynamicNodeUp(String name, String conf) {
    check(run(script, NODE_TIMEOUT, "dyn-up", name, conf), "dyn-up " + name);
  }

  /** {@code slurm-local.sh dyn-down NAME}: its slurmd stopped, its record deleted. */
  public void dynamicNodeDown(String name) {
    check(run(script, NODE_TIMEOUT, "dyn-down", name), "dyn-down " + name);
  }

  /** Kills a node's slurmd with SIGKILL (a crash: slurmctld is not told). */
  public void killSlurmd(String name) {
    Path pidFile = dir.resolve("run").resolve("slurmd-" + name + ".pid");
    try {
      long pid = Long.parseLong(Files.readString(pidFile).trim());
      ProcessHandle h =
          ProcessHandle.of(pid)
              .orElseThrow(() -> new IllegalStateException("slurmd of " + name + " not running"));
      String cmd = h.info().commandLine().orElse("");
      if (!cmd.contains("slurmd") || !cmd.contains(name)) {
        throw new IllegalStateException(
            "pid " + pid + " is not the slurmd of " + name + ": " + cmd);
      }
      h.destroyForcibly();
      h.onExit().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("could not kill the slurmd of " + name + ": " + e, e);
    }
  }

  private static void check(LocalSlurmScript.Result r, String what) {
    if (r.exitCode() != 0) {
      throw new IllegalStateException(
          "slurm-local.sh " + what + " failed (exit " + r.exitCode() + "):\n" + r.output());
    }
  }

  /** Runs the script with a bounded wait; a timeout kills it and reports exit code -1. */
  public static LocalSlurmScript.Result run(Path script, Duration timeout, String... args) {
    return LocalSlurmScript.run(script, timeout, args);
  }
}
