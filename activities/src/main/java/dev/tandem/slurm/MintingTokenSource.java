package dev.tandem.slurm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Mints HS256 tokens with Slurm's JWT key, the way {@code scontrol token} does inside slurmctld. A
 * new token is minted once half of the current one's lifespan has passed, so a token in flight is
 * always far from expiry. The key is read once; it never leaves this object.
 */
final class MintingTokenSource implements TokenSource {
  /** Slurm allows a little clock skew; back-date {@code iat} so a fast local clock is harmless. */
  private static final Duration BACKDATE = Duration.ofSeconds(30);

  private final Path keyFile;
  private final String user;
  private final Duration lifespan;
  private final Clock clock;
  private byte[] key;
  private String token;
  private Instant mintedAt;
  private Instant expiresAt;

  MintingTokenSource(Path keyFile, String user, Duration lifespan, Clock clock) {
    this.keyFile = Objects.requireNonNull(keyFile, "keyFile");
    this.user = Objects.requireNonNull(user, "user");
    if (lifespan.compareTo(Duration.ofMinutes(2)) < 0) {
      throw new IllegalArgumentException("token lifespan must be at least 2 minutes: " + lifespan);
    }
    this.lifespan = lifespan;
    this.clock = clock;
  }

  @Override
  public synchronized String token() {
    Instant now = clock.instant();
    if (token == null || !now.isBefore(mintedAt.plus(lifespan.dividedBy(2)))) {
      if (key == null) {
        key = readKey();
      }
      mintedAt = now;
      expiresAt = now.plus(lifespan);
      token = Jwt.mintHs256(key, user, now.minus(BACKDATE), expiresAt);
    }
    return token;
  }

  private byte[] readKey() {
    try {
      byte[] k = Files.readAllBytes(keyFile);
      if (k.length < 16) {
        throw new SlurmUnauthorizedException(
            "the Slurm JWT key " + keyFile + " is too short (" + k.length + " bytes)");
      }
      return k;
    } catch (IOException e) {
      throw new SlurmUnauthorizedException(
          "cannot read the Slurm JWT key " + keyFile + ": " + e.getClass().getSimpleName(), e);
    }
  }

  @Override
  public synchronized Optional<Instant> expiry() {
    return Optional.ofNullable(expiresAt);
  }

  @Override
  public String toString() {
    return "TokenSource[minting, key="
        + keyFile
        + ", user="
        + user
        + ", lifespan="
        + lifespan
        + "]";
  }
}
