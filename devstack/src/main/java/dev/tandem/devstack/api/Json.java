package dev.tandem.devstack.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Small JSON helpers: the API layer works on Jackson trees, as the API server works on maps. */
final class Json {
  private Json() {}

  static final ObjectMapper MAPPER = new ObjectMapper();
  static final JsonNodeFactory F = JsonNodeFactory.instance;

  static ObjectNode object() {
    return F.objectNode();
  }

  static JsonNode parse(String body) {
    if (body == null || body.isBlank()) {
      throw ApiException.badRequest("the request body is empty");
    }
    try {
      return MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest(
          "the request body is not valid JSON: " + e.getOriginalMessage());
    }
  }

  static ObjectNode parseObject(String body) {
    JsonNode n = parse(body);
    if (!n.isObject()) {
      throw ApiException.badRequest("the request body must be a JSON object");
    }
    return (ObjectNode) n;
  }

  /** Parses a value the store itself wrote: a failure here is a bug, not bad input. */
  static ObjectNode stored(String json) {
    try {
      return (ObjectNode) MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored object is not JSON: " + e.getMessage(), e);
    }
  }

  static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static ObjectNode meta(ObjectNode obj) {
    JsonNode m = obj.get("metadata");
    if (m == null || !m.isObject()) {
      return obj.putObject("metadata");
    }
    return (ObjectNode) m;
  }

  /** The object field {@code name} of {@code o}, created (or replaced if not an object). */
  static ObjectNode child(ObjectNode o, String name) {
    JsonNode c = o.get(name);
    return c instanceof ObjectNode on ? on : o.putObject(name);
  }

  static String text(JsonNode node, String... path) {
    JsonNode n = at(node, path);
    return n == null || n.isNull() || n.isMissingNode() ? null : n.asText();
  }

  /** Follows field names; null when any step is absent. */
  static JsonNode at(JsonNode node, String... path) {
    JsonNode n = node;
    for (String p : path) {
      if (n == null || !n.isObject()) {
        return null;
      }
      n = n.get(p);
    }
    return n;
  }

  /** Follows a dotted path such as {@code .spec.replicas} (the CRD scale subresource syntax). */
  static JsonNode atDotted(JsonNode node, String dotted) {
    return at(node, splitDotted(dotted));
  }

  static void setDotted(ObjectNode root, String dotted, JsonNode value) {
    String[] parts = splitDotted(dotted);
    ObjectNode n = root;
    for (int i = 0; i < parts.length - 1; i++) {
      JsonNode child = n.get(parts[i]);
      n = child instanceof ObjectNode o ? o : n.putObject(parts[i]);
    }
    n.set(parts[parts.length - 1], value);
  }

  static String[] splitDotted(String dotted) {
    String d = dotted.startsWith(".") ? dotted.substring(1) : dotted;
    if (d.isEmpty()) {
      throw new IllegalArgumentException("empty JSON path");
    }
    return d.split("\\.");
  }

  /** RFC 3339 with seconds precision, as the API server writes timestamps. */
  static String now() {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }

  static String quote(String s) {
    return F.textNode(s).toString();
  }
}
