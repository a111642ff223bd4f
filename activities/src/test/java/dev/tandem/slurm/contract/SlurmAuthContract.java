package dev.tandem.slurm.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.Jwt;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmClientConfig;
import dev.tandem.slurm.SlurmClients;
import dev.tandem.slurm.SlurmUnauthorizedException;
import dev.tandem.slurm.SlurmUnavailableException;
import dev.tandem.slurm.TokenSource;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Tokens and failures; the contract every target keeps ({@link SlurmContractTarget} names where
 * they differ). A bad token is refused differently underneath (22.05: errno -1 diagnosed with
 * scontrol; 25.11: 511 + error 1007), the same for callers. Subclasses: {@code SlurmAuthV0038IT},
 * {@code SlurmAuthFakeTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class SlurmAuthContract {
  private SlurmContractTarget slurm;

  /** The Slurm this suite runs against. */
  protected abstract SlurmContractTarget target();

  @BeforeAll
  void start() {
    slurm = target();
  }

  private SlurmClient clientWith(TokenSource tokens) {
    return SlurmClients.create(
        slurm.config().withTokenSource(tokens).withApiVersion(slurm.apiVersion()));
  }

  @Test
  void tokenFileAndMintedTokensWork() {
    Map<String, String> env = new HashMap<>(slurm.env());
    env.remove("SLURM_JWT_KEY_FILE");
    try (SlurmClient c = SlurmClients.create(SlurmClientConfig.fromEnv(env))) {
      assertTrue(c.ping().controllerUp());
      assertFalse(c.listNodes(null).items().isEmpty());
    }
    try (SlurmClient c = slurm.client()) { // minted from the key
      assertFalse(c.listNodes(null).items().isEmpty());
      c.undrain("n1"); // scontrol accepts the minted token too
    }
  }

  @Test
  void garbageTokenIsUnauthorizedOverRestAndScontrol() {
    try (SlurmClient c = clientWith(TokenSource.fixed("garbage"))) {
      SlurmUnauthorizedException e =
          assertThrows(SlurmUnauthorizedException.class, () -> c.listNodes(null));
      assertFalse(e.getMessage().contains("garbage"), e.getMessage());
      assertThrows(SlurmUnauthorizedException.class, () -> c.getJob(1));
      assertThrows(SlurmUnauthorizedException.class, () -> c.undrain("n1"));
    }
  }

  @Test
  void tokenSignedWithAnotherKeyIsUnauthorized() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    Instant now = Instant.now();
    String forged = Jwt.mintHs256(key, "root", now, now.plusSeconds(600));
    try (SlurmClient c = clientWith(TokenSource.fixed(forged))) {
      SlurmUnauthorizedException e =
          assertThrows(SlurmUnauthorizedException.class, () -> c.getNode("n1"));
      assertFalse(e.getMessage().contains(forged));
    }
  }

  @Test
  void expiredTokenIsRefusedBeforeSending() {
    byte[] key = new byte[32];
    Instant now = Instant.now();
    String expired = Jwt.mintHs256(key, "root", now.minusSeconds(7200), now.minusSeconds(3600));
    try (SlurmClient c = clientWith(TokenSource.fixed(expired))) {
      SlurmUnauthorizedException e =
          assertThrows(SlurmUnauthorizedException.class, () -> c.listNodes(null));
      assertTrue(e.getMessage().contains("expired"), e.getMessage());
    }
  }

  @Test
  void unreachableSlurmrestdIsUnavailable() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    SlurmClientConfig cfg =
        slurm
            .config()
            .withBaseUrl(URI.create("http://127.0.0.1:" + port))
            .withApiVersion(slurm.apiVersion());
    try (SlurmClient c = SlurmClients.create(cfg)) {
      SlurmUnavailableException e =
          assertThrows(SlurmUnavailableException.class, () -> c.listNodes(null));
      assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
      assertTrue(e.retryable());
      assertThrows(SlurmUnavailableException.class, c::ping);
    }
    // Detection needs the server too.
    assertThrows(
        SlurmUnavailableException.class, () -> SlurmClients.create(cfg.withApiVersion(null)));
  }

  @Test
  void detectsTheApiVersionFromTheServer() {
    try (SlurmClient c = SlurmClients.create(slurm.config().withApiVersion(null))) {
      assertEquals(slurm.apiVersion(), c.apiVersion());
    }
    assertTrue(Path.of(slurm.env().get("SLURM_TOKEN_FILE")).toFile().canRead());
  }
}
