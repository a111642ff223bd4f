package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ContainerResizePolicyBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FieldValidateable;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Pod writes honour {@code fieldValidation} as kube-apiserver does, against the Pod schema of the
 * emulated Kubernetes version (here 1.26, where container {@code resizePolicy} does not exist yet).
 * Unknown fields are listed in document order, as the API server's strict decoder does.
 */
class PodFieldValidationTest {
  static LocalApiServer server;
  static KubernetesClient client;
  static ApiHttp http;

  static final String POD =
      "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},"
          + "\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"busybox\","
          + "\"resizePolicy\":[{\"resourceName\":\"cpu\",\"restartPolicy\":\"NotRequired\"}],"
          + "\"bogus\":1}],\"frobnicate\":true}}";

  @BeforeAll
  static void start() throws IOException {
    server = LocalApiServer.start(0, KubeVersion.parse("1.26"));
    client = server.client();
    http = new ApiHttp(server);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void versionReportsTheEmulatedOne() {
    JsonNode v = http.get("/version").json();
    assertEquals("1", v.path("major").asText());
    assertEquals("26", v.path("minor").asText());
    assertTrue(v.path("gitVersion").asText().startsWith("v1.26."), v.toString());
    assertEquals("1.26", server.version().toString());
  }

  @Test
  void strictRefusesEveryUnknownFieldAsTheApiServerDoes() {
    ApiHttp.Res r =
        http.post(
            "/api/v1/namespaces/default/pods?fieldValidation=Strict", String.format(POD, "strict"));
    assertEquals(400, r.code(), r.toString());
    assertEquals(
        "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field"
            + " \"spec.containers[0].resizePolicy\", unknown field \"spec.containers[0].bogus\","
            + " unknown field \"spec.frobnicate\"",
        r.json().path("message").asText());
    assertEquals("BadRequest", r.json().path("reason").asText());
    assertNull(client.pods().withName("strict").get());
  }

  @Test
  void warnIsTheDefaultAndDropsTheFieldsWithAWarningEach() {
    ApiHttp.Res r = http.post("/api/v1/namespaces/default/pods", String.format(POD, "warn"));
    assertEquals(201, r.code(), r.toString());
    assertEquals(
        List.of(
            "299 - \"unknown field \\\"spec.containers[0].resizePolicy\\\"\"",
            "299 - \"unknown field \\\"spec.containers[0].bogus\\\"\"",
            "299 - \"unknown field \\\"spec.frobnicate\\\"\""),
        r.warnings());
    JsonNode stored = http.get("/api/v1/namespaces/default/pods/warn").json();
    JsonNode c = stored.path("spec").path("containers").get(0);
    assertFalse(c.has("resizePolicy"));
    assertFalse(c.has("bogus"));
    assertFalse(stored.path("spec").has("frobnicate"));
    assertEquals("busybox", c.path("image").asText());
  }

  @Test
  void ignoreDropsSilently() {
    ApiHttp.Res r =
        http.post(
            "/api/v1/namespaces/default/pods?fieldValidation=Ignore", String.format(POD, "ign"));
    assertEquals(201, r.code(), r.toString());
    assertEquals(List.of(), r.warnings());
    assertFalse(
        http.get("/api/v1/namespaces/default/pods/ign")
            .json()
            .path("spec")
            .path("containers")
            .get(0)
            .has("resizePolicy"));
  }

  @Test
  void anUnsupportedModeIsABadRequest() {
    ApiHttp.Res r =
        http.post(
            "/api/v1/namespaces/default/pods?fieldValidation=Loose", String.format(POD, "loose"));
    assertEquals(400, r.code(), r.toString());
  }

  /** What Tandem's ensurePod meets on a 1.26 cluster: fabric8's typed create, Strict. */
  @Test
  void fabric8StrictCreateOfANewerFieldGets400() {
    Pod p = ApiTestBase.pod("typed", Map.of());
    p.getSpec()
        .getContainers()
        .get(0)
        .setResizePolicy(
            List.of(
                new ContainerResizePolicyBuilder()
                    .withResourceName("cpu")
                    .withRestartPolicy("NotRequired")
                    .build()));
    KubernetesClientException e =
        assertThrows(
            KubernetesClientException.class,
            () ->
                client
                    .pods()
                    .resource(p)
                    .fieldValidation(FieldValidateable.Validation.STRICT)
                    .create());
    assertEquals(400, e.getCode());
    assertTrue(
        e.getStatus().getMessage().endsWith("unknown field \"spec.containers[0].resizePolicy\""),
        e.getStatus().getMessage());
    // Without the field, the same pod is fine, labels and resources included.
    p.getSpec().getContainers().get(0).setResizePolicy(null);
    p.getMetadata().setLabels(Map.of("a", "b"));
    p.getSpec()
        .getContainers()
        .get(0)
        .setResources(
            new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
                .addToLimits("memory", new io.fabric8.kubernetes.api.model.Quantity("1Gi"))
                .addToRequests("cpu", new io.fabric8.kubernetes.api.model.Quantity("100m"))
                .build());
    client.pods().resource(p).fieldValidation(FieldValidateable.Validation.STRICT).create();
    assertEquals("b", client.pods().withName("typed").get().getMetadata().getLabels().get("a"));
  }

  /** The default emulated version (1.32) knows resizePolicy; unknown fields stay unknown. */
  @Test
  void theDefaultVersionKnowsNewerFields() throws IOException {
    try (LocalApiServer latest = LocalApiServer.start(0)) {
      ApiHttp h = new ApiHttp(latest);
      ApiHttp.Res r =
          h.post(
              "/api/v1/namespaces/default/pods?fieldValidation=Strict",
              String.format(POD, "latest")
                  .replace(",\"bogus\":1", "")
                  .replace(",\"frobnicate\":true", ""));
      assertEquals(201, r.code(), r.toString());
      assertEquals(
          "1.32",
          h.get("/version").json().path("major").asText()
              + "."
              + h.get("/version").json().path("minor").asText());
    }
  }
}
