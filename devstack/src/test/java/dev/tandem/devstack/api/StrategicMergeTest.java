package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** Strategic merge patch semantics against the Go types' patch strategies. */
class StrategicMergeTest {
  private static ObjectNode o(String json) {
    return Json.parseObject(json.replace('\'', '"'));
  }

  private static ObjectNode smp(String kind, String orig, String patch) {
    return StrategicMerge.apply(kind, o(orig), o(patch));
  }

  @Test
  void cordonAndUncordonAsKubectlSendsThem() {
    ObjectNode node = o("{'metadata':{'name':'n'},'spec':{'podCIDR':'10.0.0.0/24'}}");
    ObjectNode cordoned = StrategicMerge.apply("Node", node, o("{'spec':{'unschedulable':true}}"));
    assertTrue(cordoned.path("spec").path("unschedulable").asBoolean());
    assertEquals("10.0.0.0/24", cordoned.path("spec").path("podCIDR").asText());
    ObjectNode uncordoned =
        StrategicMerge.apply("Node", cordoned, o("{'spec':{'unschedulable':null}}"));
    assertFalse(uncordoned.path("spec").has("unschedulable"), "null deletes the field");
  }

  @Test
  void metadataMapsMergeAndNullDeletes() {
    ObjectNode r =
        smp(
            "Pod",
            "{'metadata':{'labels':{'a':'1','b':'2'},'annotations':{'x':'y'}}}",
            "{'metadata':{'labels':{'b':null,'c':'3'}}}");
    assertEquals(o("{'a':'1','c':'3'}"), r.at("/metadata/labels"));
    assertEquals("y", r.at("/metadata/annotations/x").asText());
  }

  @Test
  void listsWithMergeKeysMergeByKey() {
    ObjectNode r =
        smp(
            "Pod",
            "{'spec':{'containers':[{'name':'a','image':'i1','env':[{'name':'E','value':'1'}]},{'name':'b','image':'i2'}]},"
                + "'status':{'conditions':[{'type':'Ready','status':'False'},{'type':'tandem.dev/Drained','status':'True'}]}}",
            "{'spec':{'containers':[{'name':'a','image':'i9','env':[{'name':'F','value':'2'}]}]},"
                + "'status':{'conditions':[{'type':'Ready','status':'True'}]}}");
    JsonNode cs = r.at("/spec/containers");
    assertEquals(2, cs.size(), "container b is kept");
    assertEquals("i9", cs.get(0).path("image").asText());
    assertEquals(2, cs.get(0).path("env").size(), "env merged by name");
    JsonNode conds = r.at("/status/conditions");
    assertEquals(2, conds.size(), "a condition owned by someone else survives");
    assertEquals("True", conds.get(0).path("status").asText());
  }

  @Test
  void listsWithoutStrategyAreReplaced() {
    ObjectNode r =
        smp(
            "Pod",
            "{'spec':{'tolerations':[{'key':'a'},{'key':'b'}]},'status':{'containerStatuses':[{'name':'x'},{'name':'y'}]}}",
            "{'spec':{'tolerations':[{'key':'c'}]},'status':{'containerStatuses':[{'name':'z'}]}}");
    assertEquals(1, r.at("/spec/tolerations").size());
    assertEquals(1, r.at("/status/containerStatuses").size());
  }

  @Test
  void finalizersMergeAsASet() {
    ObjectNode r =
        smp(
            "Pod",
            "{'metadata':{'finalizers':['a','b']}}",
            "{'metadata':{'finalizers':['b','c']}}");
    assertEquals(3, r.at("/metadata/finalizers").size());
    ObjectNode d =
        smp(
            "Pod",
            "{'metadata':{'finalizers':['a','b']}}",
            "{'metadata':{'$deleteFromPrimitiveList/finalizers':['a']}}");
    assertEquals("[\"b\"]", d.at("/metadata/finalizers").toString());
  }

  @Test
  void directives() {
    ObjectNode del =
        smp(
            "Pod",
            "{'spec':{'containers':[{'name':'a'},{'name':'b'}]}}",
            "{'spec':{'containers':[{'name':'a','$patch':'delete'}],'$setElementOrder/containers':[{'name':'b'}]}}");
    assertEquals("[{\"name\":\"b\"}]", del.at("/spec/containers").toString());
    ObjectNode replace =
        smp(
            "Pod",
            "{'metadata':{'labels':{'a':'1','b':'2'}}}",
            "{'metadata':{'labels':{'$patch':'replace','z':'9'}}}");
    assertEquals("{\"z\":\"9\"}", replace.at("/metadata/labels").toString());
    ObjectNode retain =
        smp(
            "Pod",
            "{'spec':{'volumes':[{'name':'v','emptyDir':{},'hostPath':{'path':'/x'}}]}}",
            "{'spec':{'volumes':[{'name':'v','configMap':{'name':'c'},'$retainKeys':['name','configMap']}]}}");
    assertEquals(
        "{\"name\":\"v\",\"configMap\":{\"name\":\"c\"}}", retain.at("/spec/volumes/0").toString());
  }

  @Test
  void unknownDirectivesAndMissingMergeKeysAreRefused() {
    assertEquals(415, assertThrows(ApiException.class, () -> smp("Pod", "{}", "{'$foo':1}")).code);
    assertEquals(
        400,
        assertThrows(
                ApiException.class,
                () ->
                    smp(
                        "Pod",
                        "{'spec':{'containers':[]}}",
                        "{'spec':{'containers':[{'image':'x'}]}}"))
            .code);
  }

  @Test
  void mergePatchIsRfc7386NotTheMocksAppendingMerge() {
    JsonNode r =
        Patches.mergePatch(
            o("{'a':{'b':1,'c':2},'list':[1,2,3]}"), o("{'a':{'b':null},'list':[9]}"));
    assertEquals(o("{'a':{'c':2},'list':[9]}"), r);
  }
}
