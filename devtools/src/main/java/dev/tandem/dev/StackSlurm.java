package dev.tandem.dev;

import dev.tandem.slurm.local.LocalSlurmScript;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The local Slurm of a stack: started through {@code slurm-local.sh} if it does not run, and
 * stopped on close only if this stack started it. A stack that starts it leaves a mark ({@value
 * #MARK}) in the Slurm's state dir until it stops it; a stack that finds the mark on a running
 * Slurm knows a crashed stack started it, and takes over stopping it ({@link #adopted()}).
 */
final class StackSlurm implements AutoCloseable {
  static final String MARK = "tandem-stack.started";

  private final LocalSlurmScript.Running running;
  private final Map<String, String> env;
  private final boolean adopted;

  private StackSlurm(LocalSlurmScript.Running running, Map<String, String> env, boolean adopted) {
    this.running = running;
    this.env = env;
    this.adopted = adopted;
  }

  /**
   * @param env the script's environment: which Slurm instance
   * @param who written into the mark
   */
  static StackSlurm start(Map<String, String> env, String who) throws IOException {
    LocalSlurmScript.Running r = LocalSlurmScript.ensureRunning(LocalSlurmScript.find(env), env);
    Path mark = r.envFile().getParent().resolve(MARK);
    boolean adopted = !r.startedHere() && Files.exists(mark);
    if (r.startedHere() || adopted) {
      Files.writeString(mark, "started by the Tandem stack " + who + "\n");
    }
    return new StackSlurm(r, env, adopted);
  }

  LocalSlurmScript.Running running() {
    return running;
  }

  /** A crashed stack had started this Slurm; this one stops it on close. */
  boolean adopted() {
    return adopted;
  }

  /** Stops Slurm if this stack started or adopted it; throws what the script printed otherwise. */
  @Override
  public void close() {
    if (!running.startedHere() && !adopted) {
      return;
    }
    LocalSlurmScript.Result r =
        LocalSlurmScript.run(running.script(), env, LocalSlurmScript.STOP_TIMEOUT, "stop");
    try {
      Files.deleteIfExists(running.envFile().getParent().resolve(MARK));
    } catch (IOException e) {
      // a mark left behind only makes the next stack stop a Slurm it finds running
    }
    if (r.exitCode() != 0) {
      throw new IllegalStateException("slurm-local.sh stop failed: " + r.output());
    }
  }
}
