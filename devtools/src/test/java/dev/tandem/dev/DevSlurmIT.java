package dev.tandem.dev;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmClients;
import dev.tandem.slurm.local.LocalSlurmScript;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * Issue 9, item 7: the Slurm {@code tandem dev} asks for and the tests' Slurm run side by side, and
 * stopping one leaves the other running. The dev-style instance gets free ports here instead of the
 * dev defaults, so a real {@code tandem dev} on this machine is not disturbed.
 */
class DevSlurmIT {
  @Test
  void aDevSlurmRunsBesideTheTestsSlurmAndStopsAlone() throws Exception {
    Path script = LocalSlurmScript.find(System.getenv());
    LocalSlurmScript.Running tests = LocalSlurmScript.ensureRunning(script, System.getenv());
    // Under /var/tmp, world-traversable: munged and slurmrestd run as other users.
    Path state =
        Files.createTempDirectory(
            Path.of("/var/tmp"),
            "tandem-dev-it-",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    Map<String, String> user = new HashMap<>(System.getenv());
    user.keySet().removeIf(k -> k.startsWith("TANDEM_SLURM_"));
    int[] ports = freePortBases();
    user.put("TANDEM_SLURM_PORT_BASE", Integer.toString(ports[0]));
    user.put("TANDEM_SLURM_NODE_PORT_BASE", Integer.toString(ports[1]));
    Map<String, String> devEnv = DevSlurm.environment(state, user);
    try {
      LocalSlurmScript.Running dev = LocalSlurmScript.ensureRunning(script, devEnv);
      assertEquals(state.resolve("slurm").resolve("slurm.env"), dev.envFile());
      assertTrue(dev.startedHere());
      assertNotEquals(tests.env().get("SLURM_REST_URL"), dev.env().get("SLURM_REST_URL"));
      assertNotEquals(tests.env().get("SLURM_CONF"), dev.env().get("SLURM_CONF"));
      assertEquals("UP", ping(dev.env()));
      assertEquals("UP", ping(tests.env()));
    } finally {
      LocalSlurmScript.Result r =
          LocalSlurmScript.run(script, devEnv, LocalSlurmScript.STOP_TIMEOUT, "stop");
      assertEquals(0, r.exitCode(), r.output());
      deleteTree(state);
    }
    assertEquals("UP", ping(tests.env()), "stopping the dev Slurm left the tests' one running");
  }

  private static void deleteTree(Path dir) throws IOException {
    try (var files = Files.walk(dir)) {
      for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static String ping(Map<String, String> env) {
    try (SlurmClient c = SlurmClients.create(SlurmClientConfig.fromEnv(env))) {
      return c.ping().controllerUp() ? "UP" : "DOWN";
    }
  }

  /**
   * A slurmctld base (it and the next four free: slurmd, slurmdbd, slurmrestd, MariaDB) and a
   * slurmd base (40 free ports), picked at random.
   */
  private static int[] freePortBases() throws IOException {
    for (int attempt = 0; attempt < 50; attempt++) {
      int ctld = ThreadLocalRandom.current().nextInt(20000, 29000);
      int nodes = ThreadLocalRandom.current().nextInt(29100, 32000);
      boolean ok = true;
      for (int p = ctld; ok && p <= ctld + 4; p++) {
        ok = free(p);
      }
      for (int p = nodes; ok && p < nodes + 40; p++) {
        ok = free(p);
      }
      if (ok) {
        return new int[] {ctld, nodes};
      }
    }
    throw new IOException("no free port range found");
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
