package dev.tandem.slurm;

import dev.tandem.slurm.SlurmClient.ApiVersion;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * How to reach slurmrestd.
 *
 * @param baseUrl slurmrestd, e.g. {@code http://127.0.0.1:6820} (no path)
 * @param apiVersion the REST API version to speak, or null to detect it from the server
 * @param user sent as {@code X-SLURM-USER-NAME}; the token's user (an operator, see
 *     docs/slurm-client.md)
 * @param tokenSource where {@code X-SLURM-USER-TOKEN} comes from
 * @param connectTimeout TCP connect timeout
 * @param requestTimeout whole-request timeout
 * @param scontrol the {@code scontrol} binary (22.05 changes node state through it), or null
 * @param slurmConf slurm.conf, for {@code scontrol} to find slurmctld and for 22.05 to know which
 *     nodes are declared {@code State=FUTURE}; or null
 * @param commandTimeout bound on one {@code scontrol} run
 */
public record SlurmClientConfig(
    URI baseUrl,
    ApiVersion apiVersion,
    String user,
    TokenSource tokenSource,
    Duration connectTimeout,
    Duration requestTimeout,
    Path scontrol,
    Path slurmConf,
    Duration commandTimeout) {

  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(3);
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(15);
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(15);

  /** Lifespan of minted tokens: long enough to matter little, short enough to limit a leak. */
  public static final Duration MINTED_TOKEN_LIFESPAN = Duration.ofHours(1);

  public SlurmClientConfig {
    Objects.requireNonNull(baseUrl, "baseUrl");
    if (!"http".equals(baseUrl.getScheme()) && !"https".equals(baseUrl.getScheme())) {
      throw new IllegalArgumentException("slurmrestd URL must be http(s)://host:port: " + baseUrl);
    }
    String path = baseUrl.getPath();
    if (path != null && !path.isEmpty() && !"/".equals(path)) {
      throw new IllegalArgumentException(
          "slurmrestd URL must have no path (the client adds /slurm/<version>): " + baseUrl);
    }
    if (user == null || user.isBlank()) {
      throw new IllegalArgumentException("Slurm user name is required");
    }
    Objects.requireNonNull(tokenSource, "tokenSource");
    connectTimeout = connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout;
    requestTimeout = requestTimeout == null ? DEFAULT_REQUEST_TIMEOUT : requestTimeout;
    commandTimeout = commandTimeout == null ? DEFAULT_COMMAND_TIMEOUT : commandTimeout;
  }

  /** The base URL without a trailing slash. */
  public String base() {
    String s = baseUrl.toString();
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  public SlurmClientConfig withTokenSource(TokenSource source) {
    return new SlurmClientConfig(
        baseUrl,
        apiVersion,
        user,
        source,
        connectTimeout,
        requestTimeout,
        scontrol,
        slurmConf,
        commandTimeout);
  }

  public SlurmClientConfig withBaseUrl(URI url) {
    return new SlurmClientConfig(
        url,
        apiVersion,
        user,
        tokenSource,
        connectTimeout,
        requestTimeout,
        scontrol,
        slurmConf,
        commandTimeout);
  }

  public SlurmClientConfig withApiVersion(ApiVersion version) {
    return new SlurmClientConfig(
        baseUrl,
        version,
        user,
        tokenSource,
        connectTimeout,
        requestTimeout,
        scontrol,
        slurmConf,
        commandTimeout);
  }

  /**
   * Reads the keys of {@code scripts/slurm-local.sh}'s env file (and a deployment's environment):
   *
   * <ul>
   *   <li>{@code SLURM_REST_URL} (required), {@code SLURM_REST_API} ({@code v0.0.38}, ... or {@code
   *       auto}/absent to detect), {@code SLURM_USER} (default {@code root})
   *   <li>token, first found wins: {@code SLURM_JWT_KEY_FILE} (mint), {@code SLURM_TOKEN_FILE},
   *       {@code SLURM_JWT}
   *   <li>{@code SCONTROL_BIN} (default {@code scontrol} on the PATH), {@code SLURM_CONF}
   *   <li>{@code SLURM_CONNECT_TIMEOUT}, {@code SLURM_REQUEST_TIMEOUT}, {@code
   *       SLURM_COMMAND_TIMEOUT}: seconds or ISO-8601 durations
   * </ul>
   */
  public static SlurmClientConfig fromEnv(Map<String, String> env) {
    String url = trimToNull(env.get("SLURM_REST_URL"));
    if (url == null) {
      throw new IllegalArgumentException(
          "SLURM_REST_URL is not set (slurmrestd's URL, e.g. http://127.0.0.1:6820)");
    }
    String api = trimToNull(env.get("SLURM_REST_API"));
    ApiVersion version = null;
    if (api != null && !"auto".equalsIgnoreCase(api)) {
      version =
          ApiVersion.fromPath(api)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "SLURM_REST_API="
                              + api
                              + " is not supported; use auto or one of "
                              + java.util.Arrays.toString(ApiVersion.values())));
    }
    String user = trimToNull(env.get("SLURM_USER"));
    user = user == null ? "root" : user;
    TokenSource tokens;
    String keyFile = trimToNull(env.get("SLURM_JWT_KEY_FILE"));
    String tokenFile = trimToNull(env.get("SLURM_TOKEN_FILE"));
    String jwt = trimToNull(env.get("SLURM_JWT"));
    if (keyFile != null) {
      // A key is a mounted secret that never changes: unreadable at start means misconfigured.
      // (A token file may be written later by a sidecar, and is re-read on every change.)
      if (!java.nio.file.Files.isReadable(Path.of(keyFile))) {
        throw new IllegalArgumentException(
            "SLURM_JWT_KEY_FILE=" + keyFile + " cannot be read (no such file, or no access)");
      }
      tokens = TokenSource.minting(Path.of(keyFile), user, MINTED_TOKEN_LIFESPAN);
    } else if (tokenFile != null) {
      tokens = TokenSource.file(Path.of(tokenFile));
    } else if (jwt != null) {
      tokens = TokenSource.fixed(jwt);
    } else {
      throw new IllegalArgumentException(
          "no Slurm token: set SLURM_JWT_KEY_FILE, SLURM_TOKEN_FILE or SLURM_JWT");
    }
    String scontrol = trimToNull(env.get("SCONTROL_BIN"));
    String conf = trimToNull(env.get("SLURM_CONF"));
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "SLURM_REST_URL=" + url + " is not a URL like http://127.0.0.1:6820", e);
    }
    Duration connect = duration(env, "SLURM_CONNECT_TIMEOUT");
    Duration request = duration(env, "SLURM_REQUEST_TIMEOUT");
    Duration command = duration(env, "SLURM_COMMAND_TIMEOUT");
    try {
      return new SlurmClientConfig(
          uri,
          version,
          user,
          tokens,
          connect,
          request,
          Path.of(scontrol == null ? "scontrol" : scontrol),
          conf == null ? null : Path.of(conf),
          command);
    } catch (IllegalArgumentException e) {
      // The checks of the URL's shape: say which variable holds it.
      throw new IllegalArgumentException("SLURM_REST_URL=" + url + ": " + e.getMessage(), e);
    }
  }

  private static Duration duration(Map<String, String> env, String key) {
    String v = trimToNull(env.get(key));
    if (v == null) {
      return null;
    }
    try {
      Duration d = v.matches("\\d+") ? Duration.ofSeconds(Long.parseLong(v)) : Duration.parse(v);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(key + " must be positive: " + v);
      }
      return d;
    } catch (java.time.format.DateTimeParseException e) {
      throw new IllegalArgumentException(
          key + " must be seconds or an ISO-8601 duration (PT5S): " + v, e);
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException(key + " is too large: " + v, e);
    }
  }

  private static String trimToNull(String s) {
    if (s == null) {
      return null;
    }
    String t = s.trim();
    return t.isEmpty() ? null : t;
  }

  @Override
  public String toString() {
    // The record's default would print the token source; make sure it stays redacted.
    return "SlurmClientConfig[url="
        + baseUrl
        + ", api="
        + (apiVersion == null ? "auto" : apiVersion.path())
        + ", user="
        + user
        + ", tokens="
        + tokenSource
        + ", connectTimeout="
        + connectTimeout
        + ", requestTimeout="
        + requestTimeout
        + ", scontrol="
        + scontrol
        + ", slurmConf="
        + slurmConf
        + "]";
  }
}
