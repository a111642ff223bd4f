package dev.tandem.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class JwtTest {
  private static final byte[] KEY =
      "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  @Test
  void mintsHs256WithSlurmClaimsAndAVerifiableSignature() throws Exception {
    Instant now = Instant.ofEpochSecond(1_700_000_000L);
    String t = Jwt.mintHs256(KEY, "root", now, now.plusSeconds(3600));
    String[] parts = t.split("\\.");
    assertEquals(3, parts.length);
    ObjectMapper om = new ObjectMapper();
    JsonNode header = om.readTree(Base64.getUrlDecoder().decode(parts[0]));
    JsonNode claims = om.readTree(Base64.getUrlDecoder().decode(parts[1]));
    assertEquals("HS256", header.get("alg").asText());
    assertEquals("root", claims.get("sun").asText());
    assertEquals(1_700_000_000L, claims.get("iat").asLong());
    assertEquals(1_700_003_600L, claims.get("exp").asLong());
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
    byte[] expected = mac.doFinal((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
    assertEquals(Base64.getUrlEncoder().withoutPadding().encodeToString(expected), parts[2]);
    assertTrue(!t.contains("="), "base64url without padding");
  }

  @Test
  void differentKeysGiveDifferentSignatures() {
    Instant now = Instant.ofEpochSecond(1_700_000_000L);
    byte[] other = KEY.clone();
    other[0] ^= 1;
    assertNotEquals(
        Jwt.mintHs256(KEY, "root", now, now.plusSeconds(60)),
        Jwt.mintHs256(other, "root", now, now.plusSeconds(60)));
  }

  @Test
  void readsExpiryAndToleratesNonJwts() {
    Instant now = Instant.ofEpochSecond(1_700_000_000L);
    String t = Jwt.mintHs256(KEY, "root", now, now.plusSeconds(42));
    assertEquals(Optional.of(now.plusSeconds(42)), Jwt.expiry(t));
    assertEquals(Optional.empty(), Jwt.expiry("not-a-jwt"));
    assertEquals(Optional.empty(), Jwt.expiry("a.b.c"));
    assertEquals(Optional.empty(), Jwt.expiry(null));
    String noExp =
        "e30."
            + Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString("{\"sun\":\"x\"}".getBytes(StandardCharsets.UTF_8))
            + ".sig";
    assertEquals(Optional.empty(), Jwt.expiry(noExp));
  }

  @Test
  void refusesWeakKeysAndBlankUsers() {
    Instant now = Instant.now();
    assertThrows(
        IllegalArgumentException.class, () -> Jwt.mintHs256(new byte[8], "root", now, now));
    assertThrows(IllegalArgumentException.class, () -> Jwt.mintHs256(KEY, " ", now, now));
  }
}
