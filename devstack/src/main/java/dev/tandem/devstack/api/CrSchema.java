package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.ApiException.Cause;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a real API server does with a custom resource against its CRD's structural schema: apply
 * {@code default}s, drop nulls from non-nullable fields, prune unknown fields (unless {@code
 * x-kubernetes-preserve-unknown-fields}), and validate types, {@code required}, {@code
 * minimum}/{@code maximum} (and exclusive), {@code enum}, {@code pattern}, lengths, item counts,
 * {@code multipleOf}, list-type set/map uniqueness. The plain mock stored anything, and an invalid
 * CR then stopped typed informers. CEL rules ({@code x-kubernetes-validations}) are not evaluated.
 */
final class CrSchema {
  private CrSchema() {}

  /** Errors found and the paths of pruned unknown fields. */
  record Result(List<Cause> errors, List<String> pruned) {}

  /** Applies the schema to {@code obj} in place (defaults, pruning) and returns what it found. */
  static Result apply(JsonNode schema, ObjectNode obj) {
    List<Cause> errors = new ArrayList<>();
    List<String> pruned = new ArrayList<>();
    if (schema == null || !schema.isObject()) {
      return new Result(errors, pruned);
    }
    JsonNode props = schema.path("properties");
    boolean preserve = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
    addDefaults(obj, schema);
    for (JsonNode r : schema.path("required")) {
      if (!obj.has(r.asText())) {
        errors.add(Cause.required(r.asText()));
      }
    }
    Iterator<Map.Entry<String, JsonNode>> it = obj.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String k = e.getKey();
      if (k.equals("apiVersion") || k.equals("kind") || k.equals("metadata")) {
        continue;
      }
      JsonNode ps = props.get(k);
      if (ps == null) {
        if (!preserve) {
          pruned.add(k);
          it.remove();
        }
        continue;
      }
      JsonNode v = visit(e.getValue(), ps, k, errors, pruned);
      if (v == null) {
        it.remove();
      } else {
        e.setValue(v);
      }
    }
    return new Result(errors, pruned);
  }

  /** Returns the (possibly changed) value, or null to drop the field. */
  private static JsonNode visit(
      JsonNode value, JsonNode s, String path, List<Cause> errors, List<String> pruned) {
    if (value.isNull()) {
      return s.path("nullable").asBoolean(false) ? value : null;
    }
    boolean intOrString = s.path("x-kubernetes-int-or-string").asBoolean(false);
    String type = s.path("type").asText("");
    if (intOrString) {
      if (!value.isIntegralNumber() && !value.isTextual()) {
        errors.add(SchemaChecks.typeError(path, "integer,string", value));
        return value;
      }
    } else if (!type.isEmpty() && !SchemaChecks.hasType(value, type)) {
      errors.add(SchemaChecks.typeError(path, type, value));
      return value;
    }
    JsonNode en = s.get("enum");
    if (en != null && en.isArray() && !SchemaChecks.contains(en, value)) {
      List<String> allowed = new ArrayList<>();
      en.forEach(x -> allowed.add(x.toString()));
      errors.add(
          new Cause(
              path,
              "FieldValueNotSupported",
              "Unsupported value: " + value + ": supported values: " + String.join(", ", allowed)));
    }
    if (value.isTextual()) {
      SchemaChecks.checkString(value.asText(), s, path, errors);
    } else if (value.isNumber()) {
      SchemaChecks.checkNumber(value.decimalValue(), value, s, path, errors);
    } else if (value.isArray()) {
      return checkArray((ArrayNode) value, s, path, errors, pruned);
    } else if (value.isObject()) {
      checkObject((ObjectNode) value, s, path, errors, pruned);
    }
    return value;
  }

  private static JsonNode checkArray(
      ArrayNode arr, JsonNode s, String path, List<Cause> errors, List<String> pruned) {
    if (s.has("maxItems") && arr.size() > s.get("maxItems").asInt()) {
      errors.add(
          new Cause(
              path,
              "FieldValueTooMany",
              "Too many: "
                  + arr.size()
                  + ": must have at most "
                  + s.get("maxItems").asInt()
                  + " items"));
    }
    if (s.has("minItems") && arr.size() < s.get("minItems").asInt()) {
      errors.add(
          SchemaChecks.invalid(
              path,
              String.valueOf(arr.size()),
              "should have at least " + s.get("minItems").asInt() + " items"));
    }
    JsonNode items = s.get("items");
    if (items != null && items.isObject()) {
      for (int i = 0; i < arr.size(); i++) {
        JsonNode v = visit(arr.get(i), items, path + "[" + i + "]", errors, pruned);
        arr.set(i, v == null ? Json.F.nullNode() : v);
      }
    }
    String listType = s.path("x-kubernetes-list-type").asText("");
    if (listType.equals("set") || listType.equals("map")) {
      List<String> keys = new ArrayList<>();
      s.path("x-kubernetes-list-map-keys").forEach(k -> keys.add(k.asText()));
      Set<String> seen = new HashSet<>();
      for (int i = 0; i < arr.size(); i++) {
        JsonNode el = arr.get(i);
        String id =
            listType.equals("set")
                ? el.toString()
                : keys.stream().map(k -> el.path(k).toString()).collect(Collectors.joining(","));
        if (!seen.add(id)) {
          errors.add(
              new Cause(path + "[" + i + "]", "FieldValueDuplicate", "Duplicate value: " + id));
        }
      }
    }
    return arr;
  }

  private static void checkObject(
      ObjectNode obj, JsonNode s, String path, List<Cause> errors, List<String> pruned) {
    boolean preserve = s.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
    boolean embedded = s.path("x-kubernetes-embedded-resource").asBoolean(false);
    JsonNode props = s.path("properties");
    JsonNode additional = s.get("additionalProperties");
    addDefaults(obj, s);
    for (JsonNode r : s.path("required")) {
      if (!obj.has(r.asText())) {
        errors.add(Cause.required(path + "." + r.asText()));
      }
    }
    Iterator<Map.Entry<String, JsonNode>> it = obj.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String k = e.getKey();
      String child = path + "." + k;
      JsonNode ps = props.get(k);
      if (ps == null && additional != null && additional.isObject()) {
        ps = additional;
      }
      if (ps == null) {
        boolean keep =
            preserve
                || (additional != null && additional.asBoolean(false))
                || (embedded
                    && (k.equals("apiVersion") || k.equals("kind") || k.equals("metadata")));
        if (!keep) {
          pruned.add(child);
          it.remove();
        }
        continue;
      }
      JsonNode v = visit(e.getValue(), ps, child, errors, pruned);
      if (v == null) {
        it.remove();
      } else {
        e.setValue(v);
      }
    }
  }

  private static void addDefaults(ObjectNode obj, JsonNode s) {
    s.path("properties")
        .fields()
        .forEachRemaining(
            p -> {
              if (!obj.has(p.getKey()) && p.getValue().has("default")) {
                obj.set(p.getKey(), p.getValue().get("default").deepCopy());
              }
            });
  }

  /**
   * Applies the CRD schema of a custom resource (no-op for built-ins) and honours {@code
   * fieldValidation}: pruned fields become warnings, or a 400 when Strict.
   */
  static List<String> admit(ResourceType t, ObjectNode obj, List<Cause> errors, ApiRequest req) {
    if (!t.custom()) {
      return List.of();
    }
    String mode = FieldValidation.mode(req);
    CrSchema.Result r = CrSchema.apply(t.schema(), obj);
    errors.addAll(r.errors());
    List<String> warnings = new ArrayList<>();
    for (String p : r.pruned()) {
      warnings.add("unknown field " + Json.quote(p));
    }
    if ("Strict".equals(mode) && !warnings.isEmpty()) {
      throw ApiException.badRequest("strict decoding error: " + String.join(", ", warnings));
    }
    return "Ignore".equals(mode) ? List.of() : warnings;
  }
}
