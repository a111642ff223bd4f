package dev.tandem.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.slurm.testing.MutableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenSourceTest {
  private static final byte[] KEY =
      "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final Instant T0 = Instant.ofEpochSecond(1_700_000_000L);

  @TempDir Path tmp;

  private static String token(Instant exp) {
    return Jwt.mintHs256(KEY, "root", T0, exp);
  }

  @Test
  void staticTokenIsRedactedAndRefusedOnceExpired() {
    MutableClock clock = new MutableClock(T0);
    String t = token(T0.plusSeconds(60));
    StaticTokenSource s = new StaticTokenSource(" " + t + "\n", clock);
    assertEquals(t, s.token());
    assertEquals(Optional.of(T0.plusSeconds(60)), s.expiry());
    assertFalse(s.toString().contains(t));
    clock.advance(Duration.ofSeconds(61));
    SlurmUnauthorizedException e = assertThrows(SlurmUnauthorizedException.class, s::token);
    assertFalse(e.getMessage().contains(t));
    assertThrows(IllegalArgumentException.class, () -> TokenSource.fixed("  "));
  }

  @Test
  void fileTokenIsReReadWhenTheFileChanges() throws Exception {
    MutableClock clock = new MutableClock(T0);
    Path f = tmp.resolve("token");
    String t1 = token(T0.plusSeconds(600));
    Files.writeString(f, t1 + "\n");
    FileTokenSource s = new FileTokenSource(f, clock);
    assertEquals(t1, s.token());
    String t2 = token(T0.plusSeconds(1200));
    Files.writeString(f, "SLURM_JWT=" + t2 + "\n"); // scontrol token's output, as is
    Files.setLastModifiedTime(f, FileTime.from(Instant.now().plusSeconds(5)));
    assertEquals(t2, s.token());
    assertEquals(Optional.of(T0.plusSeconds(1200)), s.expiry());
    assertFalse(s.toString().contains(t2));
  }

  @Test
  void fileTokenIsReReadAtExpiryEvenWithTheSameTimestamp() throws Exception {
    MutableClock clock = new MutableClock(T0);
    Path f = tmp.resolve("token");
    String t1 = token(T0.plusSeconds(60));
    Files.writeString(f, t1);
    FileTime fixed = Files.getLastModifiedTime(f);
    FileTokenSource s = new FileTokenSource(f, clock);
    assertEquals(t1, s.token());
    String t2 = token(T0.plusSeconds(7200)); // same length: same size
    Files.writeString(f, t2);
    Files.setLastModifiedTime(f, fixed);
    assertEquals(t1, s.token(), "unchanged file metadata: cached");
    clock.advance(Duration.ofSeconds(61));
    assertEquals(t2, s.token(), "cached token expired: file re-read");
  }

  @Test
  void fileTokenFailsClearlyWhenMissingEmptyOrExpired() throws Exception {
    MutableClock clock = new MutableClock(T0);
    Path f = tmp.resolve("token");
    FileTokenSource s = new FileTokenSource(f, clock);
    SlurmUnauthorizedException missing = assertThrows(SlurmUnauthorizedException.class, s::token);
    assertTrue(missing.getMessage().contains(f.toString()));
    Files.writeString(f, "\n");
    assertThrows(SlurmUnauthorizedException.class, s::token);
    String old = token(T0.minusSeconds(1));
    Files.writeString(f, old);
    SlurmUnauthorizedException expired = assertThrows(SlurmUnauthorizedException.class, s::token);
    assertTrue(expired.getMessage().contains("expired"));
    assertFalse(expired.getMessage().contains(old));
  }

  @Test
  void mintingRefreshesAfterHalfTheLifespan() throws Exception {
    MutableClock clock = new MutableClock(T0);
    Path key = tmp.resolve("jwt.key");
    Files.write(key, KEY);
    MintingTokenSource s = new MintingTokenSource(key, "root", Duration.ofMinutes(60), clock);
    String a = s.token();
    assertEquals(Optional.of(T0.plus(Duration.ofMinutes(60))), Jwt.expiry(a));
    clock.advance(Duration.ofMinutes(29));
    assertEquals(a, s.token(), "still fresh");
    clock.advance(Duration.ofMinutes(2));
    String b = s.token();
    assertNotEquals(a, b);
    assertEquals(Optional.of(T0.plus(Duration.ofMinutes(91))), s.expiry());
    assertFalse(s.toString().contains(b));
    assertFalse(s.toString().contains(new String(KEY, StandardCharsets.US_ASCII)));
  }

  @Test
  void mintingFailsClearlyWithoutAUsableKey() throws Exception {
    MutableClock clock = new MutableClock(T0);
    Path key = tmp.resolve("missing.key");
    MintingTokenSource s = new MintingTokenSource(key, "root", Duration.ofHours(1), clock);
    assertTrue(
        assertThrows(SlurmUnauthorizedException.class, s::token)
            .getMessage()
            .contains(key.toString()));
    Files.write(key, new byte[4]);
    assertThrows(SlurmUnauthorizedException.class, s::token);
    assertThrows(
        IllegalArgumentException.class,
        () -> new MintingTokenSource(key, "root", Duration.ofSeconds(30), clock));
  }
}
