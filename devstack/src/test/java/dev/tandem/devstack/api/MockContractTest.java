package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pins the behaviour of fabric8's mock (7.8.0) that the compatibility layer builds on, so that a
 * version bump that changes it fails here first: the protected {@code map} is the store, {@code
 * processEvent} writes and removes entries under keys that carry group/version/plural/namespace/
 * name, registers CRDs (so custom kinds get their plural), and {@code requestResourceVersion}
 * counts up.
 */
class MockContractTest {
  @Test
  void storePrimitives() {
    LocalApiDispatcher d = new LocalApiDispatcher();
    long rv1 = d.nextRv();
    long rv2 = d.nextRv();
    assertEquals(rv1 + 1, rv2);
    assertEquals(rv2, d.currentRv());

    ObjectNode pod =
        Json.parseObject(
            "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"labels\":{\"a\":\"b\"}}}");
    d.write("/api/v1/namespaces/ns/pods/p", null, pod);
    Map<AttributeSet, String> map = d.storage();
    assertEquals(1, map.size());
    AttributeSet key = map.keySet().iterator().next();
    assertEquals("pods", key.getAttribute("plural").getValues().get(0).toString());
    assertEquals("v1", key.getAttribute("version").getValues().get(0).toString());
    assertEquals("ns", key.getAttribute("namespace").getValues().get(0).toString());
    assertEquals("p", key.getAttribute("name").getValues().get(0).toString());
    assertNull(key.getAttribute("api"), "core objects carry no api group attribute");
    assertTrue(
        key.matches(
            new AttributeSet(new Attribute("plural", "pods"), new Attribute("namespace", "ns"))));
    assertNotNull(d.findResource(d.getKey("/api/v1/namespaces/ns/pods/p")));

    d.write("/api/v1/namespaces/ns/pods/p", key, null);
    assertTrue(map.isEmpty(), "null removes");
  }

  @Test
  void crdRegistrationGivesCustomKindsTheirPlural() {
    LocalApiDispatcher d = new LocalApiDispatcher();
    ObjectNode crd =
        Json.parseObject(
            "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\"metadata\":{\"name\":\"things.example.dev\"},"
                + "\"spec\":{\"group\":\"example.dev\",\"scope\":\"Namespaced\",\"names\":{\"plural\":\"things\",\"kind\":\"Thing\"},"
                + "\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true}]}}");
    d.write(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.example.dev", null, crd);
    ObjectNode cr =
        Json.parseObject(
            "{\"apiVersion\":\"example.dev/v1\",\"kind\":\"Thing\",\"metadata\":{\"name\":\"t\",\"namespace\":\"ns\"}}");
    d.write("/apis/example.dev/v1/namespaces/ns/things/t", null, cr);
    AttributeSet key =
        d.storage().keySet().stream()
            .filter(
                k ->
                    k.getAttribute("api") != null
                        && k.getAttribute("api")
                            .getValues()
                            .get(0)
                            .toString()
                            .equals("example.dev"))
            .findFirst()
            .orElseThrow();
    assertEquals("things", key.getAttribute("plural").getValues().get(0).toString());
  }

  /**
   * The index computes each key from an object's apiVersion, kind, name, namespace and labels only
   * (and hands the mock that much instead of the JSON to parse): the keys must be the very ones the
   * mock derives from the whole JSON.
   */
  @Test
  void keysAreTheOnesTheMockDerivesFromTheJson() {
    LocalApiDispatcher local = new LocalApiDispatcher();
    KubernetesCrudDispatcher plain = new KubernetesCrudDispatcher();
    Map<String, String> writes = new LinkedHashMap<>();
    writes.put(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.example.dev",
        "{\"apiVersion\":\"apiextensions.k8s.io/v1\",\"kind\":\"CustomResourceDefinition\",\"metadata\":{\"name\":\"things.example.dev\"},"
            + "\"spec\":{\"group\":\"example.dev\",\"scope\":\"Namespaced\",\"names\":{\"plural\":\"things\",\"kind\":\"Thing\"},"
            + "\"versions\":[{\"name\":\"v1\",\"served\":true,\"storage\":true}]}}");
    writes.put(
        "/api/v1/namespaces/ns/pods/p",
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\","
            + "\"labels\":{\"a\":\"b\",\"x.io/y\":\"\"}},\"spec\":{\"containers\":[]}}");
    writes.put(
        "/api/v1/namespaces/ns",
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"ns\",\"labels\":{\"k\":\"v\"}}}");
    writes.put(
        "/api/v1/namespaces/ns/events/e",
        "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"e\",\"namespace\":\"ns\"},\"reason\":\"R\"}");
    writes.put(
        "/apis/scheduling.k8s.io/v1/priorityclasses/pc",
        "{\"apiVersion\":\"scheduling.k8s.io/v1\",\"kind\":\"PriorityClass\",\"metadata\":{\"name\":\"pc\"},\"value\":5}");
    writes.put(
        "/apis/policy/v1/namespaces/ns/poddisruptionbudgets/b",
        "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":{\"name\":\"b\",\"namespace\":\"ns\"}}");
    writes.put(
        "/apis/example.dev/v1/namespaces/ns/things/t",
        "{\"apiVersion\":\"example.dev/v1\",\"kind\":\"Thing\",\"metadata\":{\"name\":\"t\",\"namespace\":\"ns\",\"labels\":{\"l\":\"1\"}}}");
    writes.put(
        "/apis/other.dev/v1/namespaces/ns/gizmos/g",
        "{\"apiVersion\":\"other.dev/v1\",\"kind\":\"Gizmo\",\"metadata\":{\"name\":\"g\",\"namespace\":\"ns\"}}");
    writes.forEach(
        (path, json) -> {
          local.write(path, null, Json.parseObject(json));
          plain.processEvent(path, plain.getKey(path), null, null, json);
        });
    assertEquals(new HashSet<>(plain.getMap().keySet()), new HashSet<>(local.storage().keySet()));
    assertEquals(writes.size(), local.index().size());
  }

  /** A write replaces what is stored under the object's identity, even given an outdated key. */
  @Test
  void aStaleKeyLeavesNoSecondCopy() {
    LocalApiDispatcher d = new LocalApiDispatcher();
    String path = "/api/v1/namespaces/ns/pods/p";
    d.write(path, null, pod("1"));
    AttributeSet first = d.storage().keySet().iterator().next();
    d.write(path, first, pod("2"));
    d.write(path, first, pod("3")); // labels are in the key: "first" is stale now
    assertEquals(1, d.storage().size());
    assertEquals(1, d.index().size());
    StoreIndex.Ident id = StoreIndex.Ident.of(first);
    assertEquals(d.storage().keySet().iterator().next(), d.index().at(id).key());
    assertEquals("3", d.index().at(id).obj().at("/metadata/labels/v").asText());
    d.write(path, first, null);
    assertTrue(d.storage().isEmpty());
    assertEquals(0, d.index().size());
  }

  private static ObjectNode pod(String label) {
    return Json.parseObject(
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"labels\":{\"v\":\""
            + label
            + "\"}}}");
  }
}
