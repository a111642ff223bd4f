package dev.tandem.k8s;

import io.fabric8.kubernetes.api.model.AuthInfo;
import io.fabric8.kubernetes.api.model.NamedAuthInfo;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.OAuthTokenProvider;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * A kubeconfig user's {@code tokenFile:}, which fabric8 7.8 ignores: without this, a worker given
 * such a kubeconfig calls the API server as {@code system:anonymous}. The file is read again a
 * minute after the last read, as kubectl does, so a token rotated in place (a projected
 * ServiceAccount token) is picked up.
 */
public final class KubeconfigTokenFile implements OAuthTokenProvider {
  /** How long a read token is used before the file is read again. */
  static final Duration REREAD = Duration.ofMinutes(1);

  private final Path file;
  private final Clock clock;
  private String token;
  private Instant readAt = Instant.MIN;

  KubeconfigTokenFile(Path file, Clock clock) {
    this.file = file;
    this.clock = clock;
  }

  /**
   * The token provider for the current user of {@code config}'s kubeconfig when that user has a
   * {@code tokenFile} and no token of its own; null otherwise. The file is read once here, so a
   * kubeconfig naming a file that cannot be read is refused at start.
   *
   * @throws IllegalArgumentException the file cannot be read or is empty
   */
  public static KubeconfigTokenFile of(Config config) {
    NamedAuthInfo u = KubeClients.currentUser(config);
    if (u == null) {
      return null;
    }
    AuthInfo a = u.getUser();
    if (a.getTokenFile() == null || a.getTokenFile().isBlank() || present(a.getToken())) {
      return null;
    }
    File kubeconfig = config.getFile();
    Path p = Path.of(a.getTokenFile());
    if (!p.isAbsolute() && kubeconfig.getParentFile() != null) {
      p = kubeconfig.getParentFile().toPath().resolve(p); // relative to the kubeconfig, as kubectl
    }
    KubeconfigTokenFile t = new KubeconfigTokenFile(p, Clock.systemUTC());
    try {
      t.getToken();
    } catch (UncheckedIOException | IllegalStateException e) {
      throw new IllegalArgumentException(
          "kubeconfig " + kubeconfig + ", user " + u.getName() + ": " + e.getMessage(), e);
    }
    return t;
  }

  @Override
  public synchronized String getToken() {
    Instant now = clock.instant();
    if (token == null || !now.isBefore(readAt.plus(REREAD))) {
      String read;
      try {
        read = Files.readString(file, StandardCharsets.UTF_8).trim();
      } catch (IOException e) {
        if (token != null) {
          return token; // keep the last token; the next call tries again
        }
        throw new UncheckedIOException("tokenFile " + file + " cannot be read: " + e, e);
      }
      if (read.isEmpty()) {
        if (token != null) {
          return token;
        }
        throw new IllegalStateException("tokenFile " + file + " is empty");
      }
      token = read;
      readAt = now;
    }
    return token;
  }

  private static boolean present(String s) {
    return s != null && !s.isEmpty();
  }
}
