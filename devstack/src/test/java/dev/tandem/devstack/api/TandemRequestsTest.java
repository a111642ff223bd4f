package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** {@link LocalApiServer#tandemRequests()} counts Tandem's clients' requests, and only theirs. */
class TandemRequestsTest {
  @Test
  void countsRequestsOfTandemClientsOnly() throws Exception {
    try (LocalApiServer api = LocalApiServer.start(0)) {
      HttpClient http = HttpClient.newHttpClient();
      long before = api.tandemRequests();
      get(http, api, "/api/v1/namespaces/default/pods", "tandem/0.1.0");
      get(http, api, "/api/v1/nodes/missing", "tandem/0.1.0 replica-a");
      get(http, api, "/api/v1/namespaces/default/pods", "kubectl/v1.31");
      get(http, api, "/api/v1/namespaces/default/pods", "fabric8-kubernetes-client/7.8.0");
      assertEquals(2, api.tandemRequests() - before);
    }
  }

  private static void get(HttpClient http, LocalApiServer api, String path, String ua)
      throws Exception {
    http.send(
        HttpRequest.newBuilder(URI.create(api.url() + path)).header("User-Agent", ua).build(),
        HttpResponse.BodyHandlers.discarding());
  }
}
