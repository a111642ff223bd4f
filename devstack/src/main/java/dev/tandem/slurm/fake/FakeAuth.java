package dev.tandem.slurm.fake;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * auth/jwt as slurmrestd does it for HS256: the token's signature must match the key, {@code exp}
 * must be in the future, and {@code sun} names the user (who must match {@code X-SLURM-USER-NAME}
 * when that header is sent).
 */
final class FakeAuth {
  private final byte[] key;

  FakeAuth(byte[] key) {
    this.key = key.clone();
  }

  /** The token's user, or empty when the token is not one this key signed and still valid. */
  Optional<String> user(String token, String userHeader, Instant now) {
    if (token == null) {
      return Optional.empty();
    }
    String[] parts = token.trim().split("\\.");
    if (parts.length != 3) {
      return Optional.empty();
    }
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      byte[] expected =
          mac.doFinal((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
      byte[] given = Base64.getUrlDecoder().decode(parts[2]);
      if (!MessageDigest.isEqual(expected, given)) {
        return Optional.empty();
      }
      JsonNode claims = FakeJson.MAPPER.readTree(Base64.getUrlDecoder().decode(parts[1]));
      String sun = claims.path("sun").asText("");
      long exp = claims.path("exp").asLong(0);
      if (sun.isEmpty() || exp <= now.getEpochSecond()) {
        return Optional.empty();
      }
      if (userHeader != null && !userHeader.isEmpty() && !userHeader.equals(sun)) {
        return Optional.empty();
      }
      return Optional.of(sun);
    } catch (Exception e) {
      // Not base64, not JSON: not a token.
      return Optional.empty();
    }
  }
}
