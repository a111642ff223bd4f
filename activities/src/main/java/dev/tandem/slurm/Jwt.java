package dev.tandem.slurm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The little of JWT that Slurm's auth/jwt needs: reading a token's {@code exp} (to know when to
 * refresh) and minting HS256 tokens with Slurm's claims ({@code sun} = Slurm user name, {@code
 * iat}, {@code exp}). Never logs a token.
 */
public final class Jwt {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

  private Jwt() {}

  /** The {@code exp} claim, or empty if the token is not a JWT or has none. */
  public static Optional<Instant> expiry(String token) {
    if (token == null) {
      return Optional.empty();
    }
    String[] parts = token.trim().split("\\.");
    if (parts.length != 3) {
      return Optional.empty();
    }
    try {
      JsonNode claims = JSON.readTree(Base64.getUrlDecoder().decode(parts[1]));
      JsonNode exp = claims.get("exp");
      return exp != null && exp.canConvertToLong()
          ? Optional.of(Instant.ofEpochSecond(exp.asLong()))
          : Optional.empty();
    } catch (IllegalArgumentException | java.io.IOException e) {
      return Optional.empty();
    }
  }

  /** The {@code sun} claim (the Slurm user the token acts as), or empty if there is none. */
  public static Optional<String> user(String token) {
    if (token == null) {
      return Optional.empty();
    }
    String[] parts = token.trim().split("\\.");
    if (parts.length != 3) {
      return Optional.empty();
    }
    try {
      JsonNode sun = JSON.readTree(Base64.getUrlDecoder().decode(parts[1])).get("sun");
      return sun != null && sun.isTextual() && !sun.asText().isBlank()
          ? Optional.of(sun.asText())
          : Optional.empty();
    } catch (IllegalArgumentException | java.io.IOException e) {
      return Optional.empty();
    }
  }

  /**
   * An HS256 token for {@code user}, valid from {@code now} until {@code expiresAt}, signed with
   * the raw bytes of Slurm's {@code jwt_hs256.key}.
   */
  public static String mintHs256(byte[] key, String user, Instant now, Instant expiresAt) {
    if (key == null || key.length < 16) {
      throw new IllegalArgumentException("JWT key must be at least 16 bytes");
    }
    if (user == null || user.isBlank()) {
      throw new IllegalArgumentException("JWT user must not be blank");
    }
    ObjectNode header = JSON.createObjectNode().put("alg", "HS256").put("typ", "JWT");
    ObjectNode claims =
        JSON.createObjectNode()
            .put("exp", expiresAt.getEpochSecond())
            .put("iat", now.getEpochSecond())
            .put("sun", user);
    String signingInput = b64(header.toString()) + "." + b64(claims.toString());
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      byte[] sig = mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII));
      return signingInput + "." + B64.encodeToString(sig);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }

  private static String b64(String json) {
    return B64.encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }
}
