package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A label selector with the full grammar of the API server: {@code a=b}, {@code a==b}, {@code
 * a!=b}, {@code a in (x,y)}, {@code a notin (x)}, {@code a}, {@code !a}, {@code a>1}, {@code a<1}.
 * The plain mock ignored set-based terms and so returned everything; a selector that does not parse
 * is refused with 400 as on a cluster.
 */
final class LabelSelector {
  enum Op {
    EXISTS,
    NOT_EXISTS,
    IN,
    NOT_IN,
    GT,
    LT
  }

  record Requirement(String key, Op op, Set<String> values) {
    boolean matches(JsonNode labels) {
      JsonNode v = labels == null ? null : labels.get(key);
      boolean has = v != null && !v.isNull();
      String value = has ? v.asText() : null;
      return switch (op) {
        case EXISTS -> has;
        case NOT_EXISTS -> !has;
        case IN -> has && values.contains(value);
        case NOT_IN -> !has || !values.contains(value);
        case GT, LT -> has && compare(value);
      };
    }

    private boolean compare(String value) {
      long bound = Long.parseLong(values.iterator().next());
      try {
        long actual = Long.parseLong(value);
        return op == Op.GT ? actual > bound : actual < bound;
      } catch (NumberFormatException e) {
        return false;
      }
    }
  }

  private static final Pattern SET =
      Pattern.compile("^(\\S+?)\\s+(in|notin)\\s*\\((.*)\\)$", Pattern.DOTALL);
  private static final Pattern OP = Pattern.compile("^([^=!<>\\s]+)\\s*(==|=|!=|>|<)\\s*(.*)$");
  private static final Pattern KEY_NAME =
      Pattern.compile("^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");

  static final LabelSelector EVERYTHING = new LabelSelector(List.of());

  final List<Requirement> requirements;

  private LabelSelector(List<Requirement> requirements) {
    this.requirements = requirements;
  }

  boolean matches(JsonNode object) {
    JsonNode labels = Json.at(object, "metadata", "labels");
    for (Requirement r : requirements) {
      if (!r.matches(labels)) {
        return false;
      }
    }
    return true;
  }

  /**
   * A {@code metav1.LabelSelector} object ({@code matchLabels}, {@code matchExpressions}). In
   * policy/v1 an empty selector selects everything and a missing one nothing: {@code null} here.
   */
  static LabelSelector fromObject(JsonNode sel) {
    if (sel == null || sel.isNull() || sel.isMissingNode()) {
      return null;
    }
    List<Requirement> reqs = new ArrayList<>();
    sel.path("matchLabels")
        .fields()
        .forEachRemaining(
            e -> reqs.add(new Requirement(e.getKey(), Op.IN, Set.of(e.getValue().asText()))));
    for (JsonNode x : sel.path("matchExpressions")) {
      Set<String> values = new java.util.HashSet<>();
      x.path("values").forEach(v -> values.add(v.asText()));
      Op op =
          switch (x.path("operator").asText()) {
            case "In" -> Op.IN;
            case "NotIn" -> Op.NOT_IN;
            case "Exists" -> Op.EXISTS;
            case "DoesNotExist" -> Op.NOT_EXISTS;
            default ->
                throw ApiException.badRequest(
                    "invalid label selector operator " + Json.quote(x.path("operator").asText()));
          };
      reqs.add(new Requirement(x.path("key").asText(), op, Set.copyOf(values)));
    }
    return new LabelSelector(List.copyOf(reqs));
  }

  static LabelSelector parse(String selector) {
    if (selector == null || selector.isBlank()) {
      return EVERYTHING;
    }
    List<Requirement> reqs = new ArrayList<>();
    for (String term : splitTopLevel(selector)) {
      reqs.add(parseTerm(term.trim(), selector));
    }
    return new LabelSelector(List.copyOf(reqs));
  }

  private static Requirement parseTerm(String t, String whole) {
    if (t.isEmpty()) {
      throw bad(whole, "empty requirement");
    }
    if (t.startsWith("!")) {
      return new Requirement(key(t.substring(1).trim(), whole), Op.NOT_EXISTS, Set.of());
    }
    Matcher m = SET.matcher(t);
    if (m.matches()) {
      Set<String> values = new java.util.LinkedHashSet<>();
      for (String v : m.group(3).split(",", -1)) {
        values.add(value(v.trim(), whole));
      }
      return new Requirement(
          key(m.group(1), whole), m.group(2).equals("in") ? Op.IN : Op.NOT_IN, Set.copyOf(values));
    }
    m = OP.matcher(t);
    if (m.matches()) {
      String k = key(m.group(1), whole);
      String v = m.group(3).trim();
      switch (m.group(2)) {
        case "=", "==" -> {
          return new Requirement(k, Op.IN, Set.of(value(v, whole)));
        }
        case "!=" -> {
          return new Requirement(k, Op.NOT_IN, Set.of(value(v, whole)));
        }
        default -> {
          try {
            Long.parseLong(v);
          } catch (NumberFormatException e) {
            throw bad(whole, "for 'Gt', 'Lt' operators, the value must be an integer: " + v);
          }
          return new Requirement(k, m.group(2).equals(">") ? Op.GT : Op.LT, Set.of(v));
        }
      }
    }
    if (!t.contains(" ") && !t.contains("(") && !t.contains(")")) {
      return new Requirement(key(t, whole), Op.EXISTS, Set.of());
    }
    throw bad(whole, "found '" + t + "', expected: key, !key, key=value, key in (values)");
  }

  /** Label keys: an optional DNS-subdomain prefix and a name of at most 63 characters. */
  private static String key(String k, String whole) {
    String name = k;
    int slash = k.indexOf('/');
    if (slash >= 0) {
      String prefix = k.substring(0, slash);
      name = k.substring(slash + 1);
      if (prefix.isEmpty() || prefix.length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
        throw bad(whole, "invalid label key prefix \"" + prefix + "\"");
      }
    }
    if (name.isEmpty() || name.length() > 63 || !KEY_NAME.matcher(name).matches()) {
      throw bad(whole, "invalid label key \"" + k + "\"");
    }
    return k;
  }

  private static String value(String v, String whole) {
    if (!v.isEmpty() && (v.length() > 63 || !KEY_NAME.matcher(v).matches())) {
      throw bad(whole, "invalid label value: \"" + v + "\"");
    }
    return v;
  }

  private static List<String> splitTopLevel(String s) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == ',' && depth == 0) {
        out.add(s.substring(start, i));
        start = i + 1;
      }
    }
    if (depth != 0) {
      throw bad(s, "unbalanced parentheses");
    }
    out.add(s.substring(start));
    return out;
  }

  private static ApiException bad(String selector, String why) {
    return ApiException.badRequest(
        "unable to parse requirement: " + why + " (labelSelector=" + Json.quote(selector) + ")");
  }
}
