package dev.tandem.slurm.modern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Reading and writing the value shapes of slurmrestd's data parsers v0.0.40 and later.
 *
 * <p>Most numbers are {@code {"set":bool,"infinite":bool,"number":N}}: {@code number} means
 * something only when {@code set} is true and {@code infinite} is false. A real 25.11 returned
 * {@code time_limit} both ways for the same job, and some fields are plain integers, so every
 * reader accepts a bare number too. Lists that the spec calls {@code csv_string} arrive as arrays
 * but older parsers wrote comma-separated strings: both are read.
 */
public final class Json {
  private Json() {}

  /** One mapper for the adapters; Jackson mappers are thread-safe once configured. */
  public static final ObjectMapper MAPPER = new ObjectMapper();

  /** The number inside a no-val struct (or a bare number); null when unset, infinite or absent. */
  public static Long number(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    if (node.isIntegralNumber()) {
      // Beyond a long, asLong() would wrap a garbage value into a plausible one.
      return node.canConvertToLong() ? node.asLong() : null;
    }
    if (node.isObject()) {
      if (!node.path("set").asBoolean(false) || node.path("infinite").asBoolean(false)) {
        return null;
      }
      JsonNode n = node.get("number");
      return n != null && n.isNumber() && n.canConvertToLong() ? n.asLong() : null;
    }
    return null;
  }

  /** A count (no-val struct or bare number): positive and within an int, else 0 (unknown). */
  public static int count(JsonNode node) {
    Long n = number(node);
    return n == null || n <= 0 || n > Integer.MAX_VALUE ? 0 : n.intValue();
  }

  /** Whether a no-val struct says "infinite" (e.g. an unlimited time limit). */
  public static boolean infinite(JsonNode node) {
    return node != null && node.isObject() && node.path("infinite").asBoolean(false);
  }

  /** A UNIX timestamp (no-val struct or bare); null when unset, infinite or not positive. */
  public static Instant instant(JsonNode node) {
    Long n = number(node);
    return n == null || n <= 0 ? null : Instant.ofEpochSecond(n);
  }

  /** A plain int field, or {@code dflt} when absent or not a number. */
  public static int intValue(JsonNode node, int dflt) {
    Long n = number(node);
    return n == null ? dflt : (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, n));
  }

  /** A text field; empty or absent gives null. */
  public static String text(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    String s = node.isTextual() ? node.asText() : node.toString();
    return s.isEmpty() ? null : s;
  }

  /** A list given as a JSON array of strings or as one comma-separated string. */
  public static List<String> stringList(JsonNode node) {
    List<String> out = new ArrayList<>();
    if (node == null || node.isNull() || node.isMissingNode()) {
      return out;
    }
    if (node.isArray()) {
      for (JsonNode e : node) {
        addTrimmed(out, e.asText());
      }
    } else if (node.isTextual()) {
      for (String s : node.asText().split(",")) {
        addTrimmed(out, s);
      }
    }
    return out;
  }

  private static void addTrimmed(List<String> out, String s) {
    String t = s == null ? "" : s.trim();
    if (!t.isEmpty()) {
      out.add(t);
    }
  }

  /** An upper-case string array (node {@code state}, job {@code job_state}). */
  public static List<String> upperList(JsonNode node) {
    List<String> out = new ArrayList<>();
    for (String s : stringList(node)) {
      out.add(s.toUpperCase(java.util.Locale.ROOT));
    }
    return out;
  }

  /** Writes a set, finite number as the no-val struct that request schemas expect. */
  public static ObjectNode setNumber(long value) {
    ObjectNode o = MAPPER.createObjectNode();
    o.put("set", true);
    o.put("infinite", false);
    o.put("number", value);
    return o;
  }
}
