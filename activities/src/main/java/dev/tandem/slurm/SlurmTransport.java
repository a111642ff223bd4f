package dev.tandem.slurm;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One HTTP exchange with slurmrestd, with authentication, timeouts and I/O failures handled below
 * the adapters. Adapters turn {@link Response}s into records and typed {@link SlurmException}s;
 * they never see the token.
 *
 * <p>Implementations throw {@link SlurmUnavailableException} for connection failures, timeouts and
 * a server that dies mid-request, and return every HTTP answer (including 4xx/5xx) as a {@link
 * Response} for the adapter to interpret, because what a 500 means differs per API version.
 */
public interface SlurmTransport extends AutoCloseable {

  Response send(Request request);

  @Override
  default void close() {}

  /**
   * @param method HTTP method
   * @param path absolute path, e.g. {@code /slurm/v0.0.38/nodes}
   * @param query query parameters; a list value is sent as the same key repeated
   * @param jsonBody request body (JSON), or null
   */
  record Request(String method, String path, Map<String, List<String>> query, String jsonBody) {
    public Request {
      query = query == null ? Map.of() : Map.copyOf(query);
    }

    public static Request get(String path) {
      return new Request("GET", path, Map.of(), null);
    }

    public static Request get(String path, Map<String, List<String>> query) {
      return new Request("GET", path, query, null);
    }

    public static Request post(String path, String jsonBody) {
      return new Request("POST", path, Map.of(), jsonBody);
    }

    public static Request delete(String path, Map<String, List<String>> query) {
      return new Request("DELETE", path, query, null);
    }
  }

  /**
   * One HTTP answer: its status and body. The body is kept as the transport received it: a String
   * ({@link #Response(int, String)}), or the raw UTF-8 bytes ({@link #utf8}), which become a String
   * only when {@link #body()} is first asked for. A large listing (22.05 answers every job it
   * holds, megabytes of JSON, every poll) is read by {@link #jsonParser} straight from the bytes,
   * without a String copy of the body and with Jackson's byte-based parser.
   */
  final class Response {
    private final int status;
    private final byte[] utf8;
    private volatile String body;

    /**
     * @param status HTTP status
     * @param body response body (may be empty, e.g. for 304, or null)
     */
    public Response(int status, String body) {
      this.status = status;
      this.utf8 = null;
      this.body = body;
    }

    private Response(int status, byte[] utf8) {
      this.status = status;
      this.utf8 = Objects.requireNonNull(utf8, "utf8");
    }

    /** An answer whose body is these UTF-8 bytes (not copied: the caller hands them over). */
    public static Response utf8(int status, byte[] body) {
      return new Response(status, body);
    }

    public int status() {
      return status;
    }

    /** The body as text (UTF-8, malformed bytes replaced), decoded once on first use. */
    public String body() {
      String b = body;
      if (b == null && utf8 != null) {
        b = new String(utf8, StandardCharsets.UTF_8);
        body = b;
      }
      return b;
    }

    public boolean ok() {
      return status >= 200 && status < 300;
    }

    /** The body's size in UTF-8 bytes, without decoding it when the bytes are at hand. */
    public long utf8Length() {
      if (utf8 != null) {
        return utf8.length;
      }
      String b = body;
      return b == null ? 0 : b.getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * A parser over the body (an empty one for a null body). From the bytes when they are strictly
     * valid UTF-8 ({@link Utf8#plain}): then the bytes and the decoded text are the same
     * characters, so the parse is the one a String parse would give. Otherwise from {@link
     * #body()}, whose decoding (malformed bytes replaced) is what callers of the String see.
     */
    public JsonParser jsonParser(JsonFactory factory) throws IOException {
      if (utf8 != null && Utf8.plain(utf8)) {
        return factory.createParser(utf8);
      }
      String b = body();
      return factory.createParser(b == null ? "" : b);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Response r && r.status == status && Objects.equals(r.body(), body());
    }

    @Override
    public int hashCode() {
      return 31 * status + Objects.hashCode(body());
    }

    @Override
    public String toString() {
      return "Response[status=" + status + ", body=" + body() + "]";
    }
  }
}
