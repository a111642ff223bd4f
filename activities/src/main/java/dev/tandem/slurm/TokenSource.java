package dev.tandem.slurm;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Where the slurmrestd token ({@code X-SLURM-USER-TOKEN}) comes from. Implementations never log or
 * print the token, and their {@code toString} says where it comes from, not what it is.
 *
 * <ul>
 *   <li>{@link #fixed}: a token handed over once (env {@code SLURM_JWT}); expires for good.
 *   <li>{@link #file}: a file holding only the token, re-read when it changes and when the cached
 *       token reaches its {@code exp} (a sidecar or {@code scontrol token} job rewrites it).
 *   <li>{@link #minting}: tokens minted locally with Slurm's HS256 key ({@code jwt_hs256.key}),
 *       refreshed well before they expire. What production uses when given the key: no token ever
 *       expires under a long-running worker.
 * </ul>
 */
public interface TokenSource {

  /**
   * The token to send now. Throws {@link SlurmUnauthorizedException} when no usable token can be
   * had (unreadable file, token already expired).
   */
  String token();

  /** When the current token expires, if known. */
  Optional<Instant> expiry();

  static TokenSource fixed(String token) {
    return new StaticTokenSource(token, Clock.systemUTC());
  }

  static TokenSource file(Path file) {
    return new FileTokenSource(file, Clock.systemUTC());
  }

  /**
   * Mints tokens for {@code user} with the key in {@code keyFile}, each valid for {@code lifespan}
   * and replaced once half of it has passed.
   */
  static TokenSource minting(Path keyFile, String user, Duration lifespan) {
    return new MintingTokenSource(keyFile, user, lifespan, Clock.systemUTC());
  }
}
