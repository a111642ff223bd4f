package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/** Raw HTTP against the local API, for asserting exact status codes, headers and bodies. */
final class ApiHttp {
  record Res(int code, String body, java.net.http.HttpHeaders headers) {
    JsonNode json() {
      return Json.parse(body);
    }

    List<String> warnings() {
      return headers.allValues("Warning");
    }

    @Override
    public String toString() {
      return code + " " + body;
    }
  }

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final String base;

  ApiHttp(LocalApiServer server) {
    this.base = server.url();
  }

  Res get(String path) {
    return call("GET", path, null, null);
  }

  Res get(String path, String accept) {
    return send(req(path).header("Accept", accept).GET().build());
  }

  Res post(String path, String json) {
    return call("POST", path, "application/json", json);
  }

  Res put(String path, String json) {
    return call("PUT", path, "application/json", json);
  }

  Res patch(String path, String contentType, String body) {
    return call("PATCH", path, contentType, body);
  }

  Res delete(String path, String json) {
    return call("DELETE", path, json == null ? null : "application/json", json);
  }

  Res call(String method, String path, String contentType, String body) {
    HttpRequest.Builder b = req(path);
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    b.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    return send(b.build());
  }

  private HttpRequest.Builder req(String path) {
    return HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10));
  }

  private Res send(HttpRequest r) {
    try {
      HttpResponse<String> resp = http.send(r, HttpResponse.BodyHandlers.ofString());
      return new Res(resp.statusCode(), resp.body(), resp.headers());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
