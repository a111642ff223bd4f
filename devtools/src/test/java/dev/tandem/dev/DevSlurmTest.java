package dev.tandem.dev;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which Slurm instance {@code tandem dev} asks {@code slurm-local.sh} for. */
class DevSlurmTest {
  private static final Path STATE = Path.of("/var/tmp/tandem-dev");

  @Test
  void ownDirectoryAndPortsUnlessTheUserChoseAnInstance() {
    Map<String, String> env = DevSlurm.environment(STATE, Map.of("PATH", "/usr/bin"));
    assertEquals("/var/tmp/tandem-dev/slurm", env.get("TANDEM_SLURM_DIR"));
    assertEquals("6827", env.get("TANDEM_SLURM_PORT_BASE"));
    assertEquals("17401", env.get("TANDEM_SLURM_NODE_PORT_BASE"));
    assertEquals("/usr/bin", env.get("PATH"), "the rest of the environment is kept");
  }

  @Test
  void neverTheTestsInstanceByDefault() {
    Map<String, String> env = DevSlurm.environment(STATE, Map.of());
    // slurm-local.sh's defaults, which .ci/run and the tests use.
    assertFalse(env.get("TANDEM_SLURM_DIR").equals("/var/tmp/tandem-slurm"));
    assertFalse(env.get("TANDEM_SLURM_PORT_BASE").equals("6817"));
    assertFalse(env.get("TANDEM_SLURM_NODE_PORT_BASE").equals("17001"));
  }

  @Test
  void portOverridesWinWithTheDevDirectory() {
    Map<String, String> env = DevSlurm.environment(STATE, Map.of("TANDEM_SLURM_PORT_BASE", "8817"));
    assertEquals("/var/tmp/tandem-dev/slurm", env.get("TANDEM_SLURM_DIR"));
    assertEquals("8817", env.get("TANDEM_SLURM_PORT_BASE"));
    assertEquals("17401", env.get("TANDEM_SLURM_NODE_PORT_BASE"));
  }

  /** A chosen directory is a chosen instance: its ports are the script's, not the dev ones. */
  @Test
  void aChosenDirectoryKeepsTheScriptsPorts() {
    Map<String, String> in = Map.of("TANDEM_SLURM_DIR", "/var/tmp/tandem-slurm");
    Map<String, String> env = DevSlurm.environment(STATE, in);
    assertEquals(in, env);
  }
}
