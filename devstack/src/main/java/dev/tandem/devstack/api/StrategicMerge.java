package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Strategic merge patch for the built-in kinds the local API serves. Lists with a merge key (pod
 * containers by {@code name}, conditions by {@code type}, ...) merge element by element, primitive
 * "set" lists (finalizers) merge as sets, every other list is replaced — the table below mirrors
 * the {@code patchStrategy}/{@code patchMergeKey} tags of the Kubernetes Go types. Directives:
 * {@code $patch} (replace/delete/merge), {@code $retainKeys}, {@code $deleteFromPrimitiveList/*};
 * {@code $setElementOrder/*} is accepted and ignored (order is not semantic for us).
 */
final class StrategicMerge {
  private StrategicMerge() {}

  /** Marks a list of scalars merged as a set. */
  static final String PRIMITIVE = "<set>";

  private static final Map<String, String> COMMON =
      Map.of("metadata.finalizers", PRIMITIVE, "metadata.ownerReferences", "uid");

  private static final Map<String, Map<String, String>> BY_KIND = new HashMap<>();

  static {
    Map<String, String> pod = new HashMap<>(COMMON);
    for (String list : List.of("containers", "initContainers", "ephemeralContainers")) {
      String c = "spec." + list;
      pod.put(c, "name");
      pod.put(c + "[].ports", "containerPort");
      pod.put(c + "[].env", "name");
      pod.put(c + "[].volumeMounts", "mountPath");
      pod.put(c + "[].volumeDevices", "devicePath");
      pod.put(c + "[].resizePolicy", "resourceName");
    }
    pod.put("spec.volumes", "name");
    pod.put("spec.imagePullSecrets", "name");
    pod.put("spec.hostAliases", "ip");
    pod.put("spec.topologySpreadConstraints", "topologyKey");
    pod.put("spec.schedulingGates", "name");
    pod.put("spec.resourceClaims", "name");
    pod.put("status.conditions", "type");
    pod.put("status.podIPs", "ip");
    pod.put("status.hostIPs", "ip");
    pod.put("status.resourceClaimStatuses", "name");
    BY_KIND.put("Pod", Map.copyOf(pod));

    Map<String, String> node = new HashMap<>(COMMON);
    node.put("spec.podCIDRs", PRIMITIVE);
    node.put("status.conditions", "type");
    node.put("status.addresses", "type");
    BY_KIND.put("Node", Map.copyOf(node));

    Map<String, String> ns = new HashMap<>(COMMON);
    ns.put("status.conditions", "type");
    BY_KIND.put("Namespace", Map.copyOf(ns));
  }

  static ObjectNode apply(String kind, ObjectNode original, ObjectNode patch) {
    Map<String, String> keys = BY_KIND.getOrDefault(kind, COMMON);
    JsonNode out = mergeMap(keys, original, patch, "");
    if (out == null) {
      throw ApiException.badRequest("a strategic merge patch cannot delete the whole object");
    }
    return (ObjectNode) out;
  }

  /** Merges {@code patch} into {@code orig} (mutated); null means "delete this map". */
  private static JsonNode mergeMap(
      Map<String, String> keys, ObjectNode orig, ObjectNode patch, String path) {
    JsonNode directive = patch.get("$patch");
    if (directive != null) {
      switch (directive.asText()) {
        case "replace" -> {
          return strip(patch);
        }
        case "delete" -> {
          return null;
        }
        case "merge" -> {}
        default ->
            throw ApiException.unsupportedMediaType(
                "unknown strategic merge patch directive $patch: " + directive.asText());
      }
    }
    Iterator<Map.Entry<String, JsonNode>> it = patch.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      String k = e.getKey();
      JsonNode v = e.getValue();
      if (k.equals("$patch") || k.equals("$retainKeys") || k.startsWith("$setElementOrder/")) {
        continue;
      }
      if (k.startsWith("$deleteFromPrimitiveList/")) {
        deleteFromPrimitiveList(orig, k.substring("$deleteFromPrimitiveList/".length()), v);
        continue;
      }
      if (k.startsWith("$")) {
        throw ApiException.unsupportedMediaType(
            "the local API does not support the strategic merge patch directive " + k);
      }
      String childPath = path.isEmpty() ? k : path + "." + k;
      if (v.isNull()) {
        orig.remove(k);
      } else if (v.isObject()) {
        JsonNode cur = orig.get(k);
        JsonNode merged =
            cur instanceof ObjectNode o
                ? mergeMap(keys, o, (ObjectNode) v, childPath)
                : mergeMap(keys, Json.object(), (ObjectNode) v, childPath);
        if (merged == null) {
          orig.remove(k);
        } else {
          orig.set(k, merged);
        }
      } else if (v.isArray()) {
        String mergeKey = keys.get(childPath);
        if (mergeKey == null) {
          orig.set(k, strip(v));
        } else if (mergeKey.equals(PRIMITIVE)) {
          orig.set(k, union(orig.get(k), (ArrayNode) v));
        } else {
          orig.set(k, mergeList(keys, orig.get(k), (ArrayNode) v, mergeKey, childPath + "[]"));
        }
      } else {
        orig.set(k, v.deepCopy());
      }
    }
    JsonNode retain = patch.get("$retainKeys");
    if (retain != null && retain.isArray()) {
      Set<String> keep = new HashSet<>();
      retain.forEach(n -> keep.add(n.asText()));
      orig.retain(keep);
    }
    return orig;
  }

  private static ArrayNode mergeList(
      Map<String, String> keys, JsonNode orig, ArrayNode patch, String mergeKey, String elemPath) {
    ArrayNode result = Json.F.arrayNode();
    for (JsonNode p : patch) {
      if (p.isObject() && "replace".equals(p.path("$patch").asText())) {
        for (JsonNode q : patch) {
          if (!(q.isObject() && q.has("$patch"))) {
            result.add(strip(q));
          }
        }
        return result;
      }
    }
    if (orig != null && orig.isArray()) {
      orig.forEach(n -> result.add(n.deepCopy()));
    }
    for (JsonNode p : patch) {
      if (!p.isObject() || !p.has(mergeKey)) {
        throw ApiException.badRequest(
            "strategic merge patch: an element of "
                + elemPath.substring(0, elemPath.length() - 2)
                + " does not contain its merge key \""
                + mergeKey
                + "\"");
      }
      JsonNode keyValue = p.get(mergeKey);
      int idx = indexOf(result, mergeKey, keyValue);
      if ("delete".equals(p.path("$patch").asText())) {
        if (idx >= 0) {
          result.remove(idx);
        }
      } else if (idx >= 0) {
        JsonNode merged = mergeMap(keys, (ObjectNode) result.get(idx), (ObjectNode) p, elemPath);
        if (merged == null) {
          result.remove(idx);
        } else {
          result.set(idx, merged);
        }
      } else {
        result.add(strip(p));
      }
    }
    return result;
  }

  private static int indexOf(ArrayNode arr, String key, JsonNode value) {
    for (int i = 0; i < arr.size(); i++) {
      if (value.equals(arr.get(i).get(key))) {
        return i;
      }
    }
    return -1;
  }

  private static ArrayNode union(JsonNode orig, ArrayNode patch) {
    ArrayNode out = Json.F.arrayNode();
    List<JsonNode> seen = new ArrayList<>();
    if (orig != null && orig.isArray()) {
      orig.forEach(
          n -> {
            out.add(n);
            seen.add(n);
          });
    }
    for (JsonNode n : patch) {
      if (!seen.contains(n)) {
        out.add(n);
        seen.add(n);
      }
    }
    return out;
  }

  private static void deleteFromPrimitiveList(ObjectNode orig, String field, JsonNode values) {
    JsonNode cur = orig.get(field);
    if (cur == null || !cur.isArray() || !values.isArray()) {
      return;
    }
    List<JsonNode> remove = new ArrayList<>();
    values.forEach(remove::add);
    ArrayNode out = Json.F.arrayNode();
    cur.forEach(
        n -> {
          if (!remove.contains(n)) {
            out.add(n);
          }
        });
    orig.set(field, out);
  }

  /** A copy without patch directives, for values that replace or get added wholesale. */
  static JsonNode strip(JsonNode n) {
    if (n.isObject()) {
      ObjectNode o = Json.object();
      n.fields()
          .forEachRemaining(
              e -> {
                if (!e.getKey().startsWith("$")) {
                  o.set(e.getKey(), strip(e.getValue()));
                }
              });
      return o;
    }
    if (n.isArray()) {
      ArrayNode a = Json.F.arrayNode();
      n.forEach(
          x -> {
            if (!(x.isObject() && x.has("$patch"))) {
              a.add(strip(x));
            }
          });
      return a;
    }
    return n.deepCopy();
  }
}
