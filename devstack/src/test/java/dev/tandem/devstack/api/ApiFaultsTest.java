package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The local API's fault injection: what fails, how it answers, for how long. */
class ApiFaultsTest extends ApiTestBase {

  @AfterEach
  void clearFaults() {
    server.faults().clear();
  }

  /** A client that does not retry 5xx (fabric8 retries them by default), named by User-Agent. */
  private static KubernetesClient client(String userAgent) {
    Config c =
        new ConfigBuilder(Config.empty())
            .withMasterUrl(server.url())
            .withNamespace("default")
            .withHttp2Disable(true)
            .withRequestRetryBackoffLimit(0)
            .withUserAgent(userAgent)
            .build();
    return new KubernetesClientBuilder().withConfig(c).build();
  }

  private static ConfigMap configMap(String name) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withData(Map.of("k", "v"))
        .build();
  }

  @Test
  void failAllAnswersEveryRequestWithAKubernetesStatusUntilCleared() {
    server.faults().failAll(503, Duration.ofMinutes(1));
    for (String path : List.of("/api/v1/namespaces/default/pods", "/version", "/apis")) {
      ApiHttp.Res r = http.get(path);
      assertEquals(503, r.code(), path + ": " + r);
      JsonNode s = r.json();
      assertEquals("Status", s.path("kind").asText());
      assertEquals("v1", s.path("apiVersion").asText());
      assertEquals("Failure", s.path("status").asText());
      assertEquals("ServiceUnavailable", s.path("reason").asText());
      assertEquals(503, s.path("code").asInt());
      assertTrue(s.path("message").asText().contains("unable to handle the request"), r.body());
    }
    ApiHttp.Res create = http.post("/api/v1/namespaces/default/configmaps", "{}");
    assertEquals(503, create.code());
    server.faults().clear();
    assertEquals(200, http.get("/api/v1/namespaces/default/pods").code());
  }

  @Test
  void aConflictOnPodWritesLeavesReadsAndOtherWritesAlone() {
    createPod("default", "conflicted", Map.of());
    ApiFaults.Fault f =
        server.faults().failMatching(ApiFaults.writesTo("pods"), 409, Duration.ofMinutes(1));
    try (KubernetesClient c = client("conflict-test")) {
      KubernetesClientException e =
          assertThrows(
              KubernetesClientException.class,
              () ->
                  c.pods()
                      .inNamespace("default")
                      .withName("conflicted")
                      .edit(
                          p ->
                              new io.fabric8.kubernetes.api.model.PodBuilder(p)
                                  .editMetadata()
                                  .addToLabels("touched", "yes")
                                  .endMetadata()
                                  .build()));
      assertEquals(409, e.getCode());
      assertEquals("Conflict", e.getStatus().getReason());
      assertEquals(
          "Operation cannot be fulfilled on pods \"conflicted\": the object has been modified;"
              + " please apply your changes to the latest version and try again"
              + " [fault injected by the local API]",
          e.getStatus().getMessage());
      assertEquals("conflicted", e.getStatus().getDetails().getName());
      assertEquals("pods", e.getStatus().getDetails().getKind());
      // Not performed: the label is not there.
      assertNull(
          c.pods()
              .inNamespace("default")
              .withName("conflicted")
              .get()
              .getMetadata()
              .getLabels()
              .get("touched"));
      // Reads and writes of other resources work.
      assertNotNull(c.configMaps().resource(configMap("unaffected")).create());
      assertEquals(
          1,
          c.pods()
              .inNamespace("default")
              .withField("metadata.name", "conflicted")
              .list()
              .getItems()
              .size());
    }
    assertTrue(f.hits() >= 1, "the fault counted its hit");
  }

  @Test
  void aFaultEndsByItselfWhenItsTimeIsUp() {
    server.faults().failAll(500, Duration.ofMillis(400));
    assertEquals(500, http.get("/api/v1/namespaces").code());
    assertEquals("InternalError", http.get("/api/v1/namespaces").json().path("reason").asText());
    await(
        Duration.ofSeconds(10),
        () -> http.get("/api/v1/namespaces").code() == 200,
        "the fault to expire");
  }

  @Test
  void theLatestMatchingFaultWinsAndCancelEndsOnlyIt() {
    ApiFaults.Fault outer = server.faults().failAll(503, Duration.ofMinutes(1));
    ApiFaults.Fault inner =
        server.faults().failMatching(ApiFaults.resource("configmaps"), 429, Duration.ofMinutes(1));
    assertEquals(429, http.get("/api/v1/namespaces/default/configmaps").code());
    assertEquals(
        "TooManyRequests",
        http.get("/api/v1/namespaces/default/configmaps").json().path("reason").asText());
    assertEquals(503, http.get("/api/v1/namespaces/default/pods").code());
    inner.cancel();
    assertEquals(503, http.get("/api/v1/namespaces/default/configmaps").code());
    outer.cancel();
    assertEquals(200, http.get("/api/v1/namespaces/default/configmaps").code());
  }

  @Test
  void faultsCanTargetOneClientByItsUserAgent() {
    server.faults().failMatching(ApiFaults.userAgent("replica-a"), 503, Duration.ofMinutes(1));
    try (KubernetesClient a = client("tandem replica-a");
        KubernetesClient b = client("tandem replica-b")) {
      KubernetesClientException e =
          assertThrows(
              KubernetesClientException.class, () -> a.namespaces().withName("default").get());
      assertEquals(503, e.getCode());
      assertNotNull(b.namespaces().withName("default").get());
    }
  }

  @Test
  void aDelayFaultPerformsTheRequestAndAnswersLate() {
    server
        .faults()
        .delayMatching(
            ApiFaults.resource("configmaps"), Duration.ofMillis(800), Duration.ofMinutes(1));
    long t0 = System.nanoTime();
    ApiHttp.Res r =
        http.post(
            "/api/v1/namespaces/default/configmaps",
            "{\"metadata\":{\"name\":\"late\"},\"data\":{\"k\":\"v\"}}");
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertEquals(201, r.code(), r.toString());
    assertTrue(tookMs >= 750, "answered after " + tookMs + "ms");
    server.faults().clear();
    assertNotNull(client.configMaps().inNamespace("default").withName("late").get());
  }

  @Test
  void watchesAreRefusedDuringAFaultAndDroppedWatchesResumeAfterIt() throws Exception {
    Set<String> seen = ConcurrentHashMap.newKeySet();
    SharedIndexInformer<ConfigMap> inf =
        client
            .configMaps()
            .inNamespace("default")
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(ConfigMap cm) {
                    seen.add(cm.getMetadata().getName());
                  }

                  @Override
                  public void onUpdate(ConfigMap a, ConfigMap b) {}

                  @Override
                  public void onDelete(ConfigMap cm, boolean unknown) {}
                });
    try {
      ApiFaults.Fault f = server.faults().failMatching(r -> r.watch(), 503, Duration.ofMinutes(1));
      ApiHttp.Res refused = http.get("/api/v1/namespaces/default/configmaps?watch=true");
      assertEquals(503, refused.code(), "a watch request during the fault: " + refused);
      server.faults().dropWatches();
      await(Duration.ofSeconds(10), () -> f.hits() >= 2, "the informer to try again");
      f.cancel();
      client.configMaps().resource(configMap("after-the-fault")).create();
      await(Duration.ofSeconds(30), () -> seen.contains("after-the-fault"), "the resumed watch");
    } finally {
      inf.close();
    }
  }

  @Test
  void badFaultsAreRefused() {
    ApiFaults faults = server.faults();
    assertThrows(IllegalArgumentException.class, () -> faults.failAll(200, Duration.ofSeconds(1)));
    assertThrows(IllegalArgumentException.class, () -> faults.failAll(503, Duration.ZERO));
    assertThrows(
        IllegalArgumentException.class,
        () -> faults.delayMatching(ApiFaults.all(), Duration.ZERO, Duration.ofSeconds(1)));
  }

  /** Faults added and cleared while requests run: every answer is either the fault or the truth. */
  @Test
  void faultsAreSafeToChangeWhileRequestsRun() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<List<Integer>>> clients = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        clients.add(
            pool.submit(
                () -> {
                  List<Integer> codes = new ArrayList<>();
                  for (int n = 0; n < 100; n++) {
                    codes.add(http.get("/api/v1/namespaces/default/configmaps").code());
                  }
                  return codes;
                }));
      }
      for (int n = 0; n < 100; n++) {
        server.faults().failAll(503, Duration.ofMillis(5));
        if (n % 3 == 0) {
          server.faults().clear();
        }
      }
      for (Future<List<Integer>> f : clients) {
        for (int code : f.get(60, TimeUnit.SECONDS)) {
          assertTrue(code == 200 || code == 503, "unexpected " + code);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
