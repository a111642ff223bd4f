package dev.tandem.slurm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the env file {@code scripts/slurm-local.sh} writes ({@code $TANDEM_SLURM_DIR/slurm.env}):
 * {@code KEY=value} lines, blank lines and {@code #} comments ignored, an optional {@code export}
 * and surrounding quotes stripped. Feed the result to {@link SlurmClientConfig#fromEnv}.
 */
public final class SlurmEnvFile {
  /** Where slurm-local.sh keeps its state unless TANDEM_SLURM_DIR says otherwise. */
  public static final Path DEFAULT_DIR = Path.of("/var/tmp/tandem-slurm");

  private SlurmEnvFile() {}

  /** The env file of the local Slurm: {@code $TANDEM_SLURM_DIR/slurm.env}. */
  public static Path defaultPath(Map<String, String> env) {
    String d = env.get("TANDEM_SLURM_DIR");
    return (d == null || d.isBlank() ? DEFAULT_DIR : Path.of(d)).resolve("slurm.env");
  }

  public static Map<String, String> read(Path file) throws IOException {
    Map<String, String> out = new LinkedHashMap<>();
    int lineNo = 0;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      lineNo++;
      String l = line.trim();
      if (l.isEmpty() || l.startsWith("#")) {
        continue;
      }
      if (l.startsWith("export ")) {
        l = l.substring("export ".length()).trim();
      }
      int eq = l.indexOf('=');
      if (eq <= 0) {
        throw new IOException(file + ":" + lineNo + ": expected KEY=value");
      }
      String v = l.substring(eq + 1).trim();
      if (v.length() >= 2
          && (v.startsWith("\"") && v.endsWith("\"") || v.startsWith("'") && v.endsWith("'"))) {
        v = v.substring(1, v.length() - 1);
      }
      out.put(l.substring(0, eq).trim(), v);
    }
    return out;
  }
}
