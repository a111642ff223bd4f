package dev.tandem.dev;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Which local Slurm {@code tandem dev} runs: its own, so that the tests and {@code .ci/run} (which
 * use {@code /var/tmp/tandem-slurm} and the script's default ports) never stop or reconfigure the
 * Slurm of a running dev stack, and the other way round.
 *
 * <p>Unless {@code TANDEM_SLURM_DIR} is set, the Slurm lives in {@code <state-dir>/slurm} with
 * slurmctld on {@value #PORT_BASE} (slurmdbd + 2, slurmrestd + 3, its MariaDB + 4) and slurmd ports
 * from {@value #NODE_PORT_BASE}. A user who sets {@code TANDEM_SLURM_DIR} chooses the instance, and
 * its ports come from {@code TANDEM_SLURM_PORT_BASE} / {@code TANDEM_SLURM_NODE_PORT_BASE} or the
 * script's defaults, exactly as for {@code scripts/slurm-local.sh}: mixing a chosen directory with
 * the dev ports could make the script think a healthy instance is broken and restart it.
 */
public final class DevSlurm {
  public static final int PORT_BASE = 6827;
  public static final int NODE_PORT_BASE = 17401;

  private DevSlurm() {}

  /** {@code env} with the dev Slurm's directory and ports filled in where the user set none. */
  public static Map<String, String> environment(Path stateDir, Map<String, String> env) {
    Map<String, String> out = new HashMap<>(env);
    String dir = env.get("TANDEM_SLURM_DIR");
    if (dir == null || dir.isBlank()) {
      out.put("TANDEM_SLURM_DIR", stateDir.toAbsolutePath().resolve("slurm").toString());
      out.putIfAbsent("TANDEM_SLURM_PORT_BASE", Integer.toString(PORT_BASE));
      out.putIfAbsent("TANDEM_SLURM_NODE_PORT_BASE", Integer.toString(NODE_PORT_BASE));
    }
    return out;
  }
}
