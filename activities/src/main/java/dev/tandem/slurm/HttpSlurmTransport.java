package dev.tandem.slurm;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SlurmTransport} on {@code java.net.http}: one shared HTTP/1.1 client (slurmrestd speaks no
 * HTTP/2), the authentication headers on every request, a connect and a whole-request timeout.
 * Connection failures, timeouts and a server that dies mid-request become {@link
 * SlurmUnavailableException}s whose messages name the request but never the token.
 */
public final class HttpSlurmTransport implements SlurmTransport {
  private static final Logger LOG = LoggerFactory.getLogger(HttpSlurmTransport.class);

  private final String base;
  private final String user;
  private final TokenSource tokens;
  private final Duration requestTimeout;
  private final HttpClient http;

  public HttpSlurmTransport(SlurmClientConfig config) {
    this(
        config.base(),
        config.user(),
        config.tokenSource(),
        config.connectTimeout(),
        config.requestTimeout());
  }

  public HttpSlurmTransport(
      String baseUrl,
      String user,
      TokenSource tokens,
      Duration connectTimeout,
      Duration requestTimeout) {
    this.base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.user = user;
    this.tokens = tokens;
    this.requestTimeout = requestTimeout;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(connectTimeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  @Override
  public Response send(Request request) {
    String what = request.method() + " " + request.path();
    URI uri = URI.create(base + request.path() + query(request.query()));
    HttpRequest.BodyPublisher body =
        request.jsonBody() == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(request.jsonBody(), StandardCharsets.UTF_8);
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri)
            .timeout(requestTimeout)
            .method(request.method(), body)
            .header("Accept", "application/json")
            .header("X-SLURM-USER-NAME", user)
            .header("X-SLURM-USER-TOKEN", tokens.token());
    if (request.jsonBody() != null) {
      b.header("Content-Type", "application/json");
    }
    long start = System.nanoTime();
    try {
      HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
      if (LOG.isDebugEnabled()) {
        LOG.debug("{} -> {} in {} ms", what, r.statusCode(), (System.nanoTime() - start) / 1e6);
      }
      return response(r.statusCode(), r.headers(), r.body());
    } catch (HttpTimeoutException e) {
      throw new SlurmUnavailableException(
          "slurmrestd at " + base + " did not answer " + what + " within " + timeoutFor(e), e);
    } catch (IOException e) {
      throw new SlurmUnavailableException(
          "slurmrestd at "
              + base
              + " failed on "
              + what
              + ": "
              + e.getClass().getSimpleName()
              + (e.getMessage() == null ? "" : ": " + e.getMessage()),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SlurmUnavailableException("interrupted during " + what + " to " + base, e);
    }
  }

  /**
   * The body stays bytes: adapters parse large listings from them without a String copy ({@link
   * Response#jsonParser}). A body declared in another charset than UTF-8 (slurmrestd declares none;
   * JSON is UTF-8) is decoded here, with the charset {@code BodyHandlers.ofString()} would use.
   */
  static Response response(int status, HttpHeaders headers, byte[] body) {
    byte[] b = body == null ? new byte[0] : body;
    Charset cs = charset(headers.firstValue("Content-Type").orElse(""));
    return cs.equals(StandardCharsets.UTF_8)
        ? Response.utf8(status, b)
        : new Response(status, new String(b, cs));
  }

  /** The {@code charset} parameter of a Content-Type; UTF-8 when absent or unknown. */
  static Charset charset(String contentType) {
    for (String param : contentType.split("[;,]")) {
      int eq = param.indexOf('=');
      if (eq > 0 && param.substring(0, eq).trim().equalsIgnoreCase("charset")) {
        String name = param.substring(eq + 1).trim().replace("\"", "");
        try {
          return Charset.forName(name);
        } catch (IllegalArgumentException e) {
          return StandardCharsets.UTF_8;
        }
      }
    }
    return StandardCharsets.UTF_8;
  }

  private String timeoutFor(HttpTimeoutException e) {
    return e instanceof java.net.http.HttpConnectTimeoutException
        ? "the connect timeout"
        : requestTimeout.toMillis() + " ms";
  }

  static String query(Map<String, List<String>> query) {
    if (query.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    query.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e -> {
              for (String v : e.getValue()) {
                sb.append(sb.length() == 0 ? '?' : '&')
                    .append(URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8))
                    .append('=')
                    .append(URLEncoder.encode(v, StandardCharsets.UTF_8));
              }
            });
    return sb.toString();
  }

  @Override
  public String toString() {
    return "HttpSlurmTransport[" + base + ", user=" + user + ", " + tokens + "]";
  }
}
