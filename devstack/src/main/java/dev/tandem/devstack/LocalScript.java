package dev.tandem.devstack;

import dev.tandem.slurm.local.LocalSlurmScript;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * One of the scripts beside {@code scripts/slurm-local.sh} that install, start and stop a local
 * component ({@code temporal-local.sh}, {@code kube-local.sh}), with the environment that names its
 * state directory and ports.
 */
public record LocalScript(Path script, Map<String, String> env) {
  /** {@code scripts/<name>}, found beside the Slurm script. */
  public static LocalScript of(String name, Map<String, String> env) {
    return new LocalScript(LocalSlurmScript.find(env).resolveSibling(name), Map.copyOf(env));
  }

  /** Runs {@code command}; its output, or an IOException with the output if it fails. */
  public String run(Duration timeout, String command) throws IOException {
    LocalSlurmScript.Result r = LocalSlurmScript.run(script, env, timeout, command);
    if (r.exitCode() != 0) {
      throw new IOException(
          "scripts/" + script.getFileName() + " " + command + " failed:\n" + r.output());
    }
    return r.output();
  }

  /** Whether {@code command} exits 0. */
  public boolean succeeds(Duration timeout, String command) {
    return LocalSlurmScript.run(script, env, timeout, command).exitCode() == 0;
  }

  /** Deletes a directory and everything in it (a temporary state directory). */
  public static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
