package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Honours {@code ?fieldManager=}: validates it as the API server does and records a {@code
 * metadata.managedFields} entry (manager, operation, subresource, time, the fields it changed). The
 * plain mock dropped a {@code /status?fieldManager=...} write altogether. Field ownership is not
 * transferred between managers (server-side apply is not implemented).
 */
final class ManagedFields {
  private ManagedFields() {}

  private static final Set<String> SERVER_METADATA =
      Set.of(
          "resourceVersion",
          "generation",
          "managedFields",
          "uid",
          "creationTimestamp",
          "name",
          "namespace",
          "deletionTimestamp",
          "deletionGracePeriodSeconds",
          "selfLink");

  /** The manager name: the explicit parameter, else the User-Agent's product, like the server. */
  static String manager(ApiRequest req) {
    String m = req.param("fieldManager");
    if (m != null) {
      if (m.length() > 128) {
        throw ApiException.badRequest(
            "fieldManager: Invalid value: "
                + Json.quote(m)
                + ": must not be longer than 128 characters");
      }
      for (char c : m.toCharArray()) {
        if (c < 0x20 || c > 0x7e) {
          throw ApiException.badRequest(
              "fieldManager: Invalid value: "
                  + Json.quote(m)
                  + ": must consist of printable characters");
        }
      }
      return m;
    }
    String ua = req.userAgent == null ? "" : req.userAgent.trim();
    int slash = ua.indexOf('/');
    String prefix = slash < 0 ? ua : ua.substring(0, slash);
    return prefix.isEmpty() ? "unknown" : prefix;
  }

  static void record(
      ObjectNode before, ObjectNode after, String manager, String apiVersion, String subresource) {
    ObjectNode fields = Json.object();
    diff(before, after, fields, true);
    ObjectNode meta = Json.meta(after);
    ArrayNode list =
        meta.get("managedFields") instanceof ArrayNode a ? a : meta.putArray("managedFields");
    ObjectNode entry = null;
    for (JsonNode e : list) {
      if (manager.equals(e.path("manager").asText())
          && "Update".equals(e.path("operation").asText())
          && (subresource == null
              ? !e.has("subresource")
              : subresource.equals(e.path("subresource").asText()))) {
        entry = (ObjectNode) e;
      }
    }
    if (entry == null) {
      entry = list.addObject();
      entry.put("manager", manager).put("operation", "Update");
      if (subresource != null) {
        entry.put("subresource", subresource);
      }
      entry.put("fieldsType", "FieldsV1");
      entry.putObject("fieldsV1");
    }
    entry.put("apiVersion", apiVersion).put("time", Json.now());
    union((ObjectNode) entry.get("fieldsV1"), fields);
  }

  /** Marks in {@code out} ({@code f:name} keys) every field that differs; lists are leaves. */
  private static void diff(JsonNode a, JsonNode b, ObjectNode out, boolean root) {
    Iterator<Map.Entry<String, JsonNode>> it = b.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String k = e.getKey();
      if (root && (k.equals("apiVersion") || k.equals("kind"))) {
        continue;
      }
      JsonNode av = a == null ? null : a.get(k);
      JsonNode bv = e.getValue();
      if (av != null && av.equals(bv)) {
        continue;
      }
      if (bv.isObject() && !bv.isEmpty()) {
        ObjectNode sub = Json.object();
        boolean metadata = root && k.equals("metadata");
        if (metadata) {
          ObjectNode filtered = ((ObjectNode) bv).deepCopy();
          filtered.remove(SERVER_METADATA);
          diff(av, filtered, sub, false);
        } else {
          diff(av != null && av.isObject() ? av : null, bv, sub, false);
        }
        if (!sub.isEmpty()) {
          out.set("f:" + k, sub);
        }
      } else {
        out.putObject("f:" + k);
      }
    }
  }

  private static void union(ObjectNode into, ObjectNode from) {
    from.fields()
        .forEachRemaining(
            e -> {
              JsonNode cur = into.get(e.getKey());
              if (cur instanceof ObjectNode c && e.getValue() instanceof ObjectNode f) {
                union(c, f);
              } else {
                into.set(e.getKey(), e.getValue().deepCopy());
              }
            });
  }
}
