package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Discovery documents and the OpenAPI stub. */
class DiscoveryTest extends ApiTestBase {

  private static Map<String, JsonNode> resources(String path) {
    Map<String, JsonNode> out = new HashMap<>();
    http.get(path).json().path("resources").forEach(r -> out.put(r.path("name").asText(), r));
    return out;
  }

  @Test
  void versionAndRoots() {
    JsonNode v = http.get("/version").json();
    assertEquals("1", v.path("major").asText());
    assertEquals("32", v.path("minor").asText());
    JsonNode api = http.get("/api").json();
    assertEquals("APIVersions", api.path("kind").asText());
    assertEquals("[\"v1\"]", api.path("versions").toString());
    JsonNode apis = http.get("/apis").json();
    assertEquals("APIGroupList", apis.path("kind").asText());
    String groups = apis.path("groups").toString();
    for (String g :
        new String[] {
          "coordination.k8s.io",
          "events.k8s.io",
          "apiextensions.k8s.io",
          "scheduling.k8s.io",
          "tandem.dev"
        }) {
      assertTrue(groups.contains("\"name\":\"" + g + "\""), g);
    }
    JsonNode tandem = http.get("/apis/tandem.dev").json();
    assertEquals("tandem.dev/v1alpha1", tandem.at("/preferredVersion/groupVersion").asText());
    assertEquals(404, http.get("/apis/apps/v1").code());
    assertEquals(404, http.get("/apis/nope.example").code());
  }

  @Test
  void coreResourcesIncludeSubresourcesKubectlNeeds() {
    Map<String, JsonNode> core = resources("/api/v1");
    for (String r :
        new String[] {
          "pods",
          "pods/status",
          "pods/binding",
          "pods/eviction",
          "nodes",
          "nodes/status",
          "namespaces",
          "events",
          "configmaps",
          "secrets",
          "bindings"
        }) {
      assertTrue(core.containsKey(r), r);
    }
    JsonNode eviction = core.get("pods/eviction");
    assertEquals("policy", eviction.path("group").asText());
    assertEquals("v1", eviction.path("version").asText());
    assertEquals("Eviction", eviction.path("kind").asText());
    assertEquals("[\"po\"]", core.get("pods").path("shortNames").toString());
    assertFalse(core.get("nodes").path("namespaced").asBoolean());
    assertTrue(resources("/apis/coordination.k8s.io/v1").containsKey("leases"));
  }

  @Test
  void registeredCrdsAppearWithSubresourcesShortNamesAndCategories() {
    Map<String, JsonNode> rs = resources("/apis/tandem.dev/v1alpha1");
    JsonNode ns = rs.get("nodesets");
    assertNotNull(ns);
    assertEquals("NodeSet", ns.path("kind").asText());
    assertEquals("[\"ns-t\",\"nst\"]", ns.path("shortNames").toString());
    assertEquals("[\"tandem\"]", ns.path("categories").toString());
    assertTrue(rs.containsKey("nodesets/status"));
    JsonNode scale = rs.get("nodesets/scale");
    assertEquals("autoscaling", scale.path("group").asText());
    assertEquals("Scale", scale.path("kind").asText());
    APIResourceList viaClient = client.getApiResources("tandem.dev/v1alpha1");
    assertTrue(
        viaClient.getResources().stream().map(APIResource::getName).anyMatch("nodesets"::equals));
    assertTrue(client.supports(TestNodeSet.class));
  }

  @Test
  void openApiV3TellsKubectlTheServerValidatesFields() {
    JsonNode root = http.get("/openapi/v3").json();
    String url = root.at("/paths/api~1v1/serverRelativeURL").asText();
    assertTrue(url.startsWith("/openapi/v3/api/v1?hash="), url);
    assertTrue(root.path("paths").has("apis/tandem.dev/v1alpha1"));
    JsonNode doc = http.get(url).json();
    JsonNode patch = doc.at("/paths/~1api~1v1~1namespaces~1{namespace}~1pods~1{name}/patch");
    assertEquals("Pod", patch.at("/x-kubernetes-group-version-kind/kind").asText());
    assertTrue(patch.path("parameters").toString().contains("\"name\":\"fieldValidation\""));
    assertFalse(patch.has("requestBody"), "no body schema: kubectl builds apply patches itself");
    assertEquals(404, http.get("/openapi/v2").code());
    assertEquals(404, http.get("/openapi/v3/apis/apps/v1").code());
  }

  @Test
  void tablesForKubectlGet() {
    createPod("default", "tabled", Map.of());
    JsonNode t =
        http.get(
                "/api/v1/namespaces/default/pods",
                "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
            .json();
    assertEquals("Table", t.path("kind").asText());
    assertEquals("Name", t.at("/columnDefinitions/0/name").asText());
    assertEquals("Status", t.at("/columnDefinitions/2/name").asText());
    boolean found = false;
    for (JsonNode row : t.path("rows")) {
      if (row.at("/cells/0").asText().equals("tabled")) {
        found = true;
        assertEquals("0/1", row.at("/cells/1").asText());
        assertEquals("Pending", row.at("/cells/2").asText());
        assertEquals("PartialObjectMetadata", row.at("/object/kind").asText());
      }
    }
    assertTrue(found);
  }

  @Test
  void protobufBodiesAreRefusedWithAnExplanation() {
    ApiHttp.Res r =
        http.call(
            "POST", "/api/v1/namespaces", "application/vnd.kubernetes.protobuf", "k8s\u0000junk");
    assertEquals(415, r.code());
    assertTrue(r.body().contains("JSON bodies only"), r.body());
  }
}
