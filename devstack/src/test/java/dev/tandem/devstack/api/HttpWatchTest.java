package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Watches streamed over plain HTTP, as client-go ({@code kubectl get -w}, {@code kubectl delete}'s
 * wait, {@code kubectl wait}) and fabric8 with {@code onlyHttpWatches} open them against a real API
 * server: one chunked 200 response, a JSON event per line, ended by the server at {@code
 * timeoutSeconds} or by the client hanging up.
 */
class HttpWatchTest extends ApiTestBase {
  private static final String LINES = "http-watch-lines";
  private static final String TABLE = "http-watch-table";
  private static final String INFORMER = "http-watch-informer";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @BeforeAll
  static void namespaces() {
    for (String ns : List.of(LINES, TABLE, INFORMER)) {
      client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
    }
  }

  @Test
  void aWatchStreamsEveryChangeAsALineUntilItsTimeout() {
    String ns = LINES;
    createPod(ns, "first", Map.of());
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () -> {
          HttpResponse<Stream<String>> r =
              open("/api/v1/namespaces/" + ns + "/pods?watch=true&timeoutSeconds=3", null);
          assertEquals(200, r.statusCode());
          assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""));
          Iterator<String> lines = r.body().iterator();
          assertEvent(lines.next(), "ADDED", "first");
          createPod(ns, "second", Map.of("stage", "new"));
          assertEvent(lines.next(), "ADDED", "second");
          client.pods().inNamespace(ns).withName("second").delete();
          assertEvent(lines.next(), "DELETED", "second");
          long before = System.nanoTime();
          assertFalse(lines.hasNext(), "the server ends the stream at timeoutSeconds");
          assertTrue(System.nanoTime() - before < Duration.ofSeconds(10).toNanos());
        });
  }

  @Test
  void kubectlsTableWatchGetsOneRowTablesAndWatchesResumeFromAVersion() {
    String ns = TABLE;
    Pod p = createPod(ns, "tabled", Map.of());
    String accept =
        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
            + "g=meta.k8s.io,application/json";
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () -> {
          String rv = p.getMetadata().getResourceVersion();
          HttpResponse<Stream<String>> r =
              open(
                  "/api/v1/namespaces/"
                      + ns
                      + "/pods?watch=true&timeoutSeconds=2&resourceVersion="
                      + rv,
                  accept);
          Iterator<String> lines = r.body().iterator();
          client
              .pods()
              .inNamespace(ns)
              .withName("tabled")
              .edit(
                  x ->
                      new io.fabric8.kubernetes.api.model.PodBuilder(x)
                          .editMetadata()
                          .addToLabels("seen", "yes")
                          .endMetadata()
                          .build());
          JsonNode ev = JSON.readTree(lines.next());
          assertEquals("MODIFIED", ev.path("type").asText(), ev.toString());
          JsonNode table = ev.path("object");
          assertEquals("Table", table.path("kind").asText());
          assertEquals("Name", table.at("/columnDefinitions/0/name").asText());
          assertEquals(1, table.path("rows").size());
          assertEquals("tabled", table.at("/rows/0/cells/0").asText());
          assertEquals("PartialObjectMetadata", table.at("/rows/0/object/kind").asText());
          lines.forEachRemaining(l -> {}); // drained to its end
        });
  }

  @Test
  void aWatchThatCannotOpenIsAnsweredAsAnyRequest() {
    assertTimeoutPreemptively(
        Duration.ofSeconds(20),
        () -> {
          HttpResponse<Stream<String>> none =
              open("/api/v1/namespaces/default/nosuchthings?watch=true", null);
          assertEquals(404, none.statusCode());
          assertEquals(
              "Status", JSON.readTree(String.join("", none.body().toList())).path("kind").asText());
          HttpResponse<Stream<String>> bad =
              open("/api/v1/namespaces/default/pods?watch=true&resourceVersion=abc", null);
          assertEquals(400, bad.statusCode());
          assertTrue(String.join("", bad.body().toList()).contains("resourceVersion"));
        });
  }

  @Test
  void fabric8OverHttpWatchesSeesChangesAndItsHangUpClosesTheWatch() {
    String ns = INFORMER;
    int before = server.openWatches();
    List<String> seen = new CopyOnWriteArrayList<>();
    KubernetesClient httpOnly =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(io.fabric8.kubernetes.client.Config.empty())
                    .withMasterUrl(server.url())
                    .withOnlyHttpWatches(true)
                    .build())
            .build();
    try (httpOnly) {
      SharedIndexInformer<Pod> inf =
          httpOnly
              .pods()
              .inNamespace(ns)
              .inform(
                  new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(Pod p) {
                      seen.add("add " + p.getMetadata().getName());
                    }

                    @Override
                    public void onUpdate(Pod o, Pod n) {
                      if (!o.getMetadata()
                          .getResourceVersion()
                          .equals(n.getMetadata().getResourceVersion())) {
                        seen.add("update " + n.getMetadata().getName());
                      }
                    }

                    @Override
                    public void onDelete(Pod p, boolean unknown) {
                      seen.add("delete " + p.getMetadata().getName());
                    }
                  });
      await(Duration.ofSeconds(10), () -> server.openWatches() > before, "the watch opened");
      createPod(ns, "w", Map.of());
      client
          .pods()
          .inNamespace(ns)
          .withName("w")
          .edit(
              p -> {
                p.getMetadata().getLabels().put("x", "1");
                return p;
              });
      client.pods().inNamespace(ns).withName("w").delete();
      List<String> want = List.of("add w", "update w", "delete w");
      await(Duration.ofSeconds(10), () -> seen.equals(want), "the informer saw " + want);
      inf.close();
    }
    await(Duration.ofSeconds(10), () -> server.openWatches() == before, "the hang-up closed it");
  }

  private static HttpResponse<Stream<String>> open(String path, String accept) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.url() + path)).GET();
    if (accept != null) {
      b.header("Accept", accept);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofLines());
  }

  private static void assertEvent(String line, String type, String name) throws Exception {
    JsonNode ev = JSON.readTree(line);
    assertEquals(type, ev.path("type").asText(), line);
    assertEquals(name, ev.at("/object/metadata/name").asText(), line);
  }
}
