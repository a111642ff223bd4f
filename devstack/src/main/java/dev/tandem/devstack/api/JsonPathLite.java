package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JSONPath subset CRD printer columns use: {@code .a.b}, {@code .a[0]} and {@code
 * .a[?(@.k=="v")].b}. Anything else yields null (shown as {@code <none>}), never an error.
 */
final class JsonPathLite {
  private JsonPathLite() {}

  private static final Pattern FILTER =
      Pattern.compile("\\?\\(@\\.([A-Za-z0-9_.-]+)\\s*==\\s*[\"']([^\"']*)[\"']\\)");

  static JsonNode eval(JsonNode root, String path) {
    String p = path.trim();
    if (p.startsWith("{") && p.endsWith("}")) {
      p = p.substring(1, p.length() - 1);
    }
    if (p.startsWith("$")) {
      p = p.substring(1);
    }
    JsonNode cur = root;
    int i = 0;
    while (i < p.length() && cur != null) {
      char c = p.charAt(i);
      if (c == '.') {
        int end = i + 1;
        while (end < p.length() && p.charAt(end) != '.' && p.charAt(end) != '[') {
          end++;
        }
        cur = cur.get(p.substring(i + 1, end));
        i = end;
      } else if (c == '[') {
        int end = p.indexOf(']', i);
        if (end < 0) {
          return null;
        }
        String inner = p.substring(i + 1, end);
        if (inner.startsWith("?")) {
          end = p.indexOf(")]", i);
          if (end < 0) {
            return null;
          }
          inner = p.substring(i + 1, end + 1);
          end++;
          cur = filter(cur, inner);
        } else {
          try {
            cur = cur.get(Integer.parseInt(inner.trim()));
          } catch (NumberFormatException e) {
            return null;
          }
        }
        i = end + 1;
      } else {
        return null;
      }
    }
    return cur == null || cur.isMissingNode() ? null : cur;
  }

  private static JsonNode filter(JsonNode arr, String expr) {
    Matcher m = FILTER.matcher(expr);
    if (!arr.isArray() || !m.matches()) {
      return null;
    }
    for (JsonNode el : arr) {
      JsonNode v = Json.at(el, m.group(1).split("\\."));
      if (v != null && m.group(2).equals(v.asText())) {
        return el;
      }
    }
    return null;
  }
}
