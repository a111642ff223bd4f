package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** Selector parsing and matching, including the set-based terms the plain mock ignored. */
class SelectorsTest {
  private static ObjectNode obj(String json) {
    return Json.parseObject(json);
  }

  private final ObjectNode gpu =
      obj(
          "{\"metadata\":{\"name\":\"a\",\"namespace\":\"x\",\"labels\":{\"pool\":\"gpu\",\"rank\":\"3\"}}}");
  private final ObjectNode cpu =
      obj("{\"metadata\":{\"name\":\"b\",\"namespace\":\"x\",\"labels\":{\"pool\":\"cpu\"}}}");
  private final ObjectNode none = obj("{\"metadata\":{\"name\":\"c\",\"namespace\":\"x\"}}");

  @Test
  void setBasedTermsFilter() {
    LabelSelector in = LabelSelector.parse("pool in (gpu, fpga)");
    assertTrue(in.matches(gpu));
    assertFalse(in.matches(cpu));
    assertFalse(in.matches(none));

    LabelSelector notin = LabelSelector.parse("pool notin (gpu)");
    assertFalse(notin.matches(gpu));
    assertTrue(notin.matches(cpu));
    assertTrue(notin.matches(none), "notin matches objects without the label, as on a cluster");

    LabelSelector absent = LabelSelector.parse("!pool");
    assertTrue(absent.matches(none));
    assertFalse(absent.matches(gpu));

    LabelSelector exists = LabelSelector.parse("pool");
    assertTrue(exists.matches(cpu));
    assertFalse(exists.matches(none));
  }

  @Test
  void equalityAndCombinedTerms() {
    assertTrue(LabelSelector.parse("pool=gpu,rank==3").matches(gpu));
    assertFalse(LabelSelector.parse("pool=gpu,rank!=3").matches(gpu));
    assertTrue(LabelSelector.parse("pool!=gpu").matches(none));
    assertTrue(LabelSelector.parse("rank>2").matches(gpu));
    assertFalse(LabelSelector.parse("rank<2").matches(gpu));
    assertTrue(LabelSelector.parse("pool in (gpu),!missing").matches(gpu));
    assertTrue(LabelSelector.parse("").matches(none));
  }

  @Test
  void malformedLabelSelectorsAreRefusedWith400() {
    for (String bad :
        new String[] {"pool in (gpu", "pool in gpu)", "Bad Key=1", "a=b c", "rank>x"}) {
      ApiException e = assertThrows(ApiException.class, () -> LabelSelector.parse(bad), bad);
      assertEquals(400, e.code, bad);
    }
  }

  @Test
  void fieldSelectorsUseEachResourcesFields() {
    ResourceCatalog c = new ResourceCatalog();
    ResourceType pods = c.require("", "v1", "pods");
    ResourceType nodes = c.require("", "v1", "nodes");
    ObjectNode p1 =
        obj(
            "{\"metadata\":{\"name\":\"p1\",\"namespace\":\"x\"},\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":\"Running\"}}");
    ObjectNode p2 =
        obj(
            "{\"metadata\":{\"name\":\"p2\",\"namespace\":\"y\"},\"spec\":{},\"status\":{\"phase\":\"Pending\"}}");
    assertTrue(FieldSelector.parse("spec.nodeName=n1", pods).matches(p1));
    assertFalse(FieldSelector.parse("spec.nodeName=n1", pods).matches(p2));
    assertTrue(
        FieldSelector.parse("spec.nodeName=", pods).matches(p2),
        "unbound pods have an empty nodeName");
    assertTrue(FieldSelector.parse("status.phase!=Pending,metadata.namespace=x", pods).matches(p1));
    assertFalse(FieldSelector.parse("status.phase!=Running", pods).matches(p1));
    assertTrue(FieldSelector.parse("metadata.name==p2", pods).matches(p2));
    assertEquals("p2", FieldSelector.parse("metadata.name=p2", pods).pinnedName());

    ObjectNode cordoned = obj("{\"metadata\":{\"name\":\"n\"},\"spec\":{\"unschedulable\":true}}");
    assertTrue(FieldSelector.parse("spec.unschedulable=true", nodes).matches(cordoned));
    assertTrue(FieldSelector.parse("spec.unschedulable=false", nodes).matches(none));

    ApiException e =
        assertThrows(ApiException.class, () -> FieldSelector.parse("spec.nodeName=n1", nodes));
    assertEquals(400, e.code);
    assertTrue(e.getMessage().contains("field label not supported: spec.nodeName"), e.getMessage());
    assertThrows(ApiException.class, () -> FieldSelector.parse("spec.foo=1", pods));
    assertThrows(ApiException.class, () -> FieldSelector.parse("justtext", pods));
  }

  @Test
  void escapedFieldValues() {
    ResourceType pods = new ResourceCatalog().require("", "v1", "pods");
    ObjectNode p = obj("{\"metadata\":{\"name\":\"a,b=c\"}}");
    assertTrue(FieldSelector.parse("metadata.name=a\\,b\\=c", pods).matches(p));
  }
}
