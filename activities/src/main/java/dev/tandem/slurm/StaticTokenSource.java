package dev.tandem.slurm;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/** A token handed over once (env {@code SLURM_JWT}); it cannot be renewed. */
final class StaticTokenSource implements TokenSource {
  private final String token;
  private final Optional<Instant> expiry;
  private final Clock clock;

  StaticTokenSource(String token, Clock clock) {
    Objects.requireNonNull(token, "token");
    String t = token.trim();
    if (t.isEmpty()) {
      throw new IllegalArgumentException("Slurm token is empty");
    }
    this.token = t;
    this.expiry = Jwt.expiry(t);
    this.clock = clock;
  }

  @Override
  public String token() {
    if (expiry.isPresent() && !clock.instant().isBefore(expiry.get())) {
      throw new SlurmUnauthorizedException(
          "the static Slurm token (SLURM_JWT) expired at "
              + expiry.get()
              + "; give a token file or the JWT key instead");
    }
    return token;
  }

  @Override
  public Optional<Instant> expiry() {
    return expiry;
  }

  @Override
  public String toString() {
    return "TokenSource[static, token=<redacted>, exp="
        + expiry.map(Instant::toString).orElse("?")
        + "]";
  }
}
