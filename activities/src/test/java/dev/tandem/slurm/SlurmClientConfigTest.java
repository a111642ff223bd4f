package dev.tandem.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SlurmClientConfigTest {
  private static Map<String, String> env(String... kv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  void readsTheEnvFileKeys(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
    Path key = java.nio.file.Files.write(tmp.resolve("k"), new byte[32]);
    SlurmClientConfig c =
        SlurmClientConfig.fromEnv(
            env(
                "SLURM_REST_URL", "http://127.0.0.1:6820",
                "SLURM_REST_API", "v0.0.38",
                "SLURM_USER", "slurmop",
                "SLURM_TOKEN_FILE", "/tmp/t",
                "SLURM_JWT_KEY_FILE", key.toString(),
                "SLURM_CONF", "/etc/slurm/slurm.conf",
                "SCONTROL_BIN", "/usr/bin/scontrol",
                "SLURM_REQUEST_TIMEOUT", "7",
                "SLURM_CONNECT_TIMEOUT", "PT0.5S"));
    assertEquals("http://127.0.0.1:6820", c.base());
    assertEquals(SlurmClient.ApiVersion.V0_0_38, c.apiVersion());
    assertEquals("slurmop", c.user());
    assertTrue(c.tokenSource() instanceof MintingTokenSource, "key file wins");
    assertEquals(Path.of("/etc/slurm/slurm.conf"), c.slurmConf());
    assertEquals(Path.of("/usr/bin/scontrol"), c.scontrol());
    assertEquals(Duration.ofSeconds(7), c.requestTimeout());
    assertEquals(Duration.ofMillis(500), c.connectTimeout());
    assertEquals(SlurmClientConfig.DEFAULT_COMMAND_TIMEOUT, c.commandTimeout());
  }

  @Test
  void tokenPrecedenceAndDefaults() {
    SlurmClientConfig file =
        SlurmClientConfig.fromEnv(
            env("SLURM_REST_URL", "http://h:1/", "SLURM_TOKEN_FILE", "/t", "SLURM_JWT", "x.y.z"));
    assertTrue(file.tokenSource() instanceof FileTokenSource);
    assertEquals("http://h:1", file.base());
    assertNull(file.apiVersion(), "absent = detect");
    assertEquals("root", file.user());
    assertEquals(Path.of("scontrol"), file.scontrol());
    SlurmClientConfig jwt =
        SlurmClientConfig.fromEnv(
            env(
                "SLURM_REST_URL",
                "http://h:1",
                "SLURM_JWT",
                "secret-token",
                "SLURM_REST_API",
                "auto"));
    assertTrue(jwt.tokenSource() instanceof StaticTokenSource);
    assertNull(jwt.apiVersion());
    assertFalse(jwt.toString().contains("secret-token"), jwt.toString());
  }

  @Test
  void badInputGetsClearErrors() {
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> SlurmClientConfig.fromEnv(env()))
            .getMessage()
            .contains("SLURM_REST_URL"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> SlurmClientConfig.fromEnv(env("SLURM_REST_URL", "http://h:1")))
            .getMessage()
            .contains("no Slurm token"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    SlurmClientConfig.fromEnv(
                        env(
                            "SLURM_REST_URL",
                            "http://h:1",
                            "SLURM_JWT",
                            "t",
                            "SLURM_REST_API",
                            "v9")))
            .getMessage()
            .contains("v9"));
    assertThrows(
        IllegalArgumentException.class,
        () -> SlurmClientConfig.fromEnv(env("SLURM_REST_URL", "ftp://h:1", "SLURM_JWT", "t")));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            SlurmClientConfig.fromEnv(env("SLURM_REST_URL", "http://h:1/slurm", "SLURM_JWT", "t")));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            SlurmClientConfig.fromEnv(
                env(
                    "SLURM_REST_URL",
                    "http://h:1",
                    "SLURM_JWT",
                    "t",
                    "SLURM_REQUEST_TIMEOUT",
                    "soon")));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            SlurmClientConfig.fromEnv(
                env(
                    "SLURM_REST_URL",
                    "http://h:1",
                    "SLURM_JWT",
                    "t",
                    "SLURM_REQUEST_TIMEOUT",
                    "0")));
  }
}
