package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tandem.devstack.api.ApiException.Cause;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** The value checks of {@link CrSchema}, with the API server's wording. */
final class SchemaChecks {
  private SchemaChecks() {}

  private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

  static void checkString(String v, JsonNode s, String path, List<Cause> errors) {
    if (s.has("maxLength") && v.length() > s.get("maxLength").asInt()) {
      errors.add(
          new Cause(
              path,
              "FieldValueTooLong",
              "Too long: may not be longer than " + s.get("maxLength").asInt()));
    }
    if (s.has("minLength") && v.length() < s.get("minLength").asInt()) {
      errors.add(
          invalid(
              path,
              Json.quote(v),
              "should be at least " + s.get("minLength").asInt() + " chars long"));
    }
    if (s.has("pattern")) {
      String p = s.get("pattern").asText();
      Pattern compiled = pattern(p);
      if (compiled != null && !compiled.matcher(v).find()) {
        errors.add(invalid(path, Json.quote(v), "should match '" + p + "'"));
      }
    }
  }

  static void checkNumber(BigDecimal v, JsonNode raw, JsonNode s, String path, List<Cause> errors) {
    String shown = raw.asText();
    if (s.has("minimum")) {
      BigDecimal min = s.get("minimum").decimalValue();
      boolean excl = s.path("exclusiveMinimum").asBoolean(false);
      if (excl ? v.compareTo(min) <= 0 : v.compareTo(min) < 0) {
        errors.add(
            invalid(
                path,
                shown,
                "should be greater than " + (excl ? "" : "or equal to ") + num(s.get("minimum"))));
      }
    }
    if (s.has("maximum")) {
      BigDecimal max = s.get("maximum").decimalValue();
      boolean excl = s.path("exclusiveMaximum").asBoolean(false);
      if (excl ? v.compareTo(max) >= 0 : v.compareTo(max) > 0) {
        errors.add(
            invalid(
                path,
                shown,
                "should be less than " + (excl ? "" : "or equal to ") + num(s.get("maximum"))));
      }
    }
    if (s.has("multipleOf")) {
      BigDecimal m = s.get("multipleOf").decimalValue();
      if (m.signum() != 0 && v.remainder(m).signum() != 0) {
        errors.add(invalid(path, shown, "should be a multiple of " + num(s.get("multipleOf"))));
      }
    }
  }

  static boolean hasType(JsonNode v, String type) {
    return switch (type) {
      case "object" -> v.isObject();
      case "array" -> v.isArray();
      case "string" -> v.isTextual();
      case "integer" -> v.isIntegralNumber();
      case "number" -> v.isNumber();
      case "boolean" -> v.isBoolean();
      default -> true;
    };
  }

  static String jsonType(JsonNode v) {
    if (v.isObject()) {
      return "object";
    }
    if (v.isArray()) {
      return "array";
    }
    if (v.isTextual()) {
      return "string";
    }
    if (v.isIntegralNumber()) {
      return "integer";
    }
    if (v.isNumber()) {
      return "number";
    }
    return v.isBoolean() ? "boolean" : "null";
  }

  static Cause typeError(String path, String want, JsonNode v) {
    String got = jsonType(v);
    return new Cause(
        path,
        "FieldValueTypeInvalid",
        "Invalid value: \""
            + got
            + "\": "
            + path
            + " in body must be of type "
            + want
            + ": \""
            + got
            + "\"");
  }

  static Cause invalid(String path, String shown, String rule) {
    return Cause.invalid(path, "Invalid value: " + shown + ": " + path + " in body " + rule);
  }

  static boolean contains(JsonNode arr, JsonNode v) {
    for (JsonNode x : arr) {
      if (x.equals(v)
          || (x.isNumber() && v.isNumber() && x.decimalValue().compareTo(v.decimalValue()) == 0)) {
        return true;
      }
    }
    return false;
  }

  static String num(JsonNode n) {
    return n.isIntegralNumber()
        ? n.asText()
        : n.decimalValue().stripTrailingZeros().toPlainString();
  }

  static Pattern pattern(String p) {
    try {
      return PATTERNS.computeIfAbsent(p, Pattern::compile);
    } catch (PatternSyntaxException e) {
      return null; // a CRD with a pattern Java cannot compile: skip rather than refuse every CR
    }
  }
}
