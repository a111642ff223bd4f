package dev.tandem.devstack.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.ApiException.Cause;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Structural-schema handling of custom resources, with the API server's messages. */
class CrSchemaTest {
  private static ObjectNode o(String json) {
    return Json.parseObject(json.replace('\'', '"'));
  }

  private static final JsonNode SCHEMA =
      o(
          "{'type':'object','properties':{'spec':{'type':'object','required':['image'],'properties':{"
              + "'image':{'type':'string','minLength':1},"
              + "'replicas':{'type':'integer','minimum':0,'maximum':10,'default':1},"
              + "'ratio':{'type':'number','exclusiveMinimum':true,'minimum':0,'multipleOf':0.5},"
              + "'mode':{'type':'string','enum':['fast','safe']},"
              + "'name':{'type':'string','pattern':'^[a-z]+$','maxLength':5},"
              + "'port':{'x-kubernetes-int-or-string':true},"
              + "'tags':{'type':'array','items':{'type':'string'},'maxItems':2,'x-kubernetes-list-type':'set'},"
              + "'labels':{'type':'object','additionalProperties':{'type':'string'}},"
              + "'extra':{'type':'object','x-kubernetes-preserve-unknown-fields':true},"
              + "'opt':{'type':'string','nullable':true},"
              + "'ports':{'type':'array','x-kubernetes-list-type':'map','x-kubernetes-list-map-keys':['name'],"
              + "  'items':{'type':'object','properties':{'name':{'type':'string'},'n':{'type':'integer'}}}}"
              + "}}}}");

  private static List<String> messages(CrSchema.Result r) {
    return r.errors().stream().map(Cause::render).collect(Collectors.toList());
  }

  @Test
  void validObjectGetsDefaultsAndLosesUnknownFields() {
    ObjectNode cr =
        o(
            "{'apiVersion':'x/v1','kind':'K','metadata':{'name':'a'},'spec':{'image':'i','bogus':1,'extra':{'any':{'thing':1}},'opt':null,'labels':{'k':'v'}},'junk':true}");
    CrSchema.Result r = CrSchema.apply(SCHEMA, cr);
    assertEquals(List.of(), messages(r));
    assertEquals(1, cr.at("/spec/replicas").asInt(), "default applied");
    assertTrue(cr.at("/spec/bogus").isMissingNode(), "unknown field pruned");
    assertTrue(cr.at("/junk").isMissingNode());
    assertEquals(1, cr.at("/spec/extra/any/thing").asInt(), "preserve-unknown-fields keeps it");
    assertTrue(cr.at("/spec/opt").isNull(), "nullable keeps null");
    assertEquals(
        List.of("spec.bogus", "junk"),
        r.pruned().stream().sorted((a, b) -> b.compareTo(a)).toList());
  }

  @Test
  void everyRuleReportsLikeTheApiServer() {
    ObjectNode cr =
        o(
            "{'spec':{'replicas':11,'ratio':0.7,'mode':'slow','name':'ABCDEFG','port':true,'tags':['a','a','b'],'ports':[{'name':'x'},{'name':'x'}],'labels':{'k':1}}}");
    List<String> m = messages(CrSchema.apply(SCHEMA, cr));
    assertTrue(m.contains("spec.image: Required value"), m.toString());
    assertTrue(
        m.contains(
            "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"),
        m.toString());
    assertTrue(
        m.contains(
            "spec.ratio: Invalid value: 0.7: spec.ratio in body should be a multiple of 0.5"),
        m.toString());
    assertTrue(
        m.contains("spec.mode: Unsupported value: \"slow\": supported values: \"fast\", \"safe\""),
        m.toString());
    assertTrue(
        m.contains(
            "spec.name: Invalid value: \"ABCDEFG\": spec.name in body should match '^[a-z]+$'"),
        m.toString());
    assertTrue(m.contains("spec.name: Too long: may not be longer than 5"), m.toString());
    assertTrue(
        m.contains(
            "spec.port: Invalid value: \"boolean\": spec.port in body must be of type integer,string: \"boolean\""),
        m.toString());
    assertTrue(m.contains("spec.tags: Too many: 3: must have at most 2 items"), m.toString());
    assertTrue(
        m.stream().anyMatch(s -> s.startsWith("spec.tags[1]: Duplicate value")), m.toString());
    assertTrue(
        m.stream().anyMatch(s -> s.startsWith("spec.ports[1]: Duplicate value")), m.toString());
    assertTrue(
        m.contains(
            "spec.labels.k: Invalid value: \"integer\": spec.labels.k in body must be of type string: \"integer\""),
        m.toString());
  }

  @Test
  void typeMismatchStopsFurtherChecksOfThatField() {
    List<String> m =
        messages(CrSchema.apply(SCHEMA, o("{'spec':{'image':'i','replicas':'three'}}")));
    assertEquals(
        List.of(
            "spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\""),
        m);
  }

  @Test
  void nullInNonNullableFieldIsDropped() {
    ObjectNode cr = o("{'spec':{'image':'i','mode':null}}");
    assertEquals(List.of(), messages(CrSchema.apply(SCHEMA, cr)));
    assertTrue(cr.at("/spec/mode").isMissingNode());
  }
}
