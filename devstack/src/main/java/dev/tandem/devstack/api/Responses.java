package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.mockwebserver.http.MockResponse;
import java.util.List;

/** HTTP responses with the headers clients (kubectl above all) look at. */
final class Responses {
  private Responses() {}

  static MockResponse json(int code, JsonNode body) {
    return new MockResponse()
        .setResponseCode(code)
        .setHeader("Content-Type", "application/json")
        .setHeader("Cache-Control", "no-cache, private")
        .setBody(Json.write(body));
  }

  /** Adds {@code Warning: 299 - "..."} headers, as the API server does for dropped fields. */
  static MockResponse withWarnings(MockResponse r, List<String> warnings) {
    for (String w : warnings) {
      r.addHeader("Warning", "299 - " + Json.quote(w));
    }
    return r;
  }

  static MockResponse text(int code, String body) {
    return new MockResponse()
        .setResponseCode(code)
        .setHeader("Content-Type", "text/plain; charset=utf-8")
        .setBody(body);
  }
}
