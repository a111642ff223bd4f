package dev.tandem.slurm;

import java.util.List;
import java.util.Map;

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
   * @param status HTTP status
   * @param body response body (may be empty, e.g. for 304)
   */
  record Response(int status, String body) {
    public boolean ok() {
      return status >= 200 && status < 300;
    }
  }
}
