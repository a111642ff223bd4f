package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A field selector ({@code a=b}, {@code a==b}, {@code a!=b}, comma-separated, {@code \} escapes)
 * over the fields each resource declares selectable. An unsupported field is refused with 400
 * ("field label not supported") instead of the plain mock's silent empty or full answer.
 */
final class FieldSelector {
  record Requirement(String field, boolean equals, String value) {}

  /** Selectable names whose JSON location differs from the name. */
  private static final Map<String, String> ALIASES = Map.of("source", "source.component");

  /** Boolean fields the API server renders as "false" when absent. */
  private static final List<String> BOOLEAN_FIELDS =
      List.of("spec.hostNetwork", "spec.unschedulable");

  static final FieldSelector EVERYTHING = new FieldSelector(List.of());

  final List<Requirement> requirements;

  private FieldSelector(List<Requirement> requirements) {
    this.requirements = requirements;
  }

  static FieldSelector parse(String selector, ResourceType type) {
    if (selector == null || selector.isBlank()) {
      return EVERYTHING;
    }
    List<Requirement> reqs = new ArrayList<>();
    for (String term : splitUnescaped(selector, ',')) {
      String t = term.trim();
      if (t.isEmpty()) {
        continue;
      }
      int idx;
      boolean eq;
      int opLen;
      if ((idx = indexUnescaped(t, "!=")) >= 0) {
        eq = false;
        opLen = 2;
      } else if ((idx = indexUnescaped(t, "==")) >= 0) {
        eq = true;
        opLen = 2;
      } else if ((idx = indexUnescaped(t, "=")) >= 0) {
        eq = true;
        opLen = 1;
      } else {
        throw ApiException.badRequest(
            "invalid selector: '" + selector + "'; can't understand '" + t + "'");
      }
      String field = t.substring(0, idx).trim();
      String value = unescape(t.substring(idx + opLen).trim());
      if (!supported(field, type)) {
        throw ApiException.badRequest(
            "field label not supported: " + field + " (" + type.qualifiedResource() + ")");
      }
      reqs.add(new Requirement(field, eq, value));
    }
    return new FieldSelector(List.copyOf(reqs));
  }

  static boolean supported(String field, ResourceType type) {
    return field.equals("metadata.name")
        || field.equals("metadata.namespace")
        || type.fieldLabels().contains(field);
  }

  boolean matches(JsonNode object) {
    for (Requirement r : requirements) {
      boolean same = valueOf(object, r.field()).equals(r.value());
      if (same != r.equals()) {
        return false;
      }
    }
    return true;
  }

  /** The single name an {@code metadata.name=x} term pins, else null (lets watches narrow). */
  String pinnedName() {
    for (Requirement r : requirements) {
      if (r.field().equals("metadata.name") && r.equals()) {
        return r.value();
      }
    }
    return null;
  }

  static String valueOf(JsonNode object, String field) {
    String path = ALIASES.getOrDefault(field, field);
    JsonNode n = Json.at(object, path.split("\\."));
    if (n == null || n.isNull() || n.isMissingNode()) {
      return BOOLEAN_FIELDS.contains(field) ? "false" : "";
    }
    return n.asText();
  }

  private static List<String> splitUnescaped(String s, char sep) {
    List<String> out = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 1 < s.length()) {
        cur.append(c).append(s.charAt(++i));
      } else if (c == sep) {
        out.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    out.add(cur.toString());
    return out;
  }

  private static int indexUnescaped(String s, String op) {
    for (int i = 0; i + op.length() <= s.length(); i++) {
      if (s.charAt(i) == '\\') {
        i++;
        continue;
      }
      if (s.startsWith(op, i)) {
        return i;
      }
    }
    return -1;
  }

  private static String unescape(String s) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 1 < s.length()) {
        b.append(s.charAt(++i));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }
}
