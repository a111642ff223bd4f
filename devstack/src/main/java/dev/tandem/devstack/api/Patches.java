package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;
import io.fabric8.zjsonpatch.JsonPatchException;
import java.util.Iterator;
import java.util.Map;

/** The patch types a real API server accepts, applied to a copy of the current object. */
final class Patches {
  private Patches() {}

  static final String JSON_PATCH = "json-patch+json";
  static final String MERGE_PATCH = "merge-patch+json";
  static final String STRATEGIC = "strategic-merge-patch+json";
  static final String APPLY = "apply-patch+yaml";

  /** Applies the request's patch according to its Content-Type. */
  static ObjectNode apply(ResourceType type, ObjectNode current, ApiRequest req, String kind) {
    String subtype = req.mediaSubtype();
    if (subtype == null) {
      throw ApiException.unsupportedMediaType(
          "a PATCH needs a Content-Type: application/json-patch+json,"
              + " application/merge-patch+json or application/strategic-merge-patch+json");
    }
    switch (subtype) {
      case JSON_PATCH -> {
        return jsonPatch(current, req.body);
      }
      case MERGE_PATCH -> {
        return asObject(mergePatch(current.deepCopy(), Json.parseObject(req.body)));
      }
      case STRATEGIC -> {
        if (type.custom()) {
          // A real API server refuses this too; fabric8's patch(String) defaults to it.
          throw ApiException.unsupportedMediaType(
              "the body of the request was in an unknown format - accepted media types include:"
                  + " application/json-patch+json, application/merge-patch+json,"
                  + " application/apply-patch+yaml (strategic merge patch is not supported for"
                  + " custom resources such as "
                  + type.qualifiedResource()
                  + "; use PatchType.JSON_MERGE)");
        }
        if (!type.smp()) {
          throw ApiException.unsupportedMediaType(
              "the local API does not implement strategic merge patch for "
                  + type.qualifiedResource()
                  + "; use application/merge-patch+json or application/json-patch+json");
        }
        return StrategicMerge.apply(kind, current.deepCopy(), Json.parseObject(req.body));
      }
      case APPLY ->
          throw ApiException.unsupportedMediaType(
              "the local API does not implement server-side apply (application/apply-patch+yaml);"
                  + " use client-side apply (kubectl apply without --server-side), a merge patch"
                  + " or an update");
      default ->
          throw ApiException.unsupportedMediaType(
              "unsupported patch type " + Json.quote(req.contentType));
    }
  }

  static ObjectNode jsonPatch(ObjectNode current, String body) {
    JsonNode ops = Json.parse(body);
    if (!ops.isArray()) {
      throw ApiException.badRequest("a JSON patch must be an array of operations");
    }
    try {
      return asObject(JsonPatch.apply(ops, current.deepCopy()));
    } catch (JsonPatchException | IllegalArgumentException e) {
      throw new ApiException(
          422,
          "Invalid",
          "the JSON patch could not be applied: " + e.getMessage(),
          null,
          null,
          null,
          null);
    }
  }

  /** RFC 7386: objects merge recursively, null removes, everything else (lists too) replaces. */
  static JsonNode mergePatch(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode out = target != null && target.isObject() ? (ObjectNode) target : Json.object();
    Iterator<Map.Entry<String, JsonNode>> it = patch.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getValue().isNull()) {
        out.remove(e.getKey());
      } else {
        out.set(e.getKey(), mergePatch(out.get(e.getKey()), e.getValue()));
      }
    }
    return out;
  }

  private static ObjectNode asObject(JsonNode n) {
    if (!n.isObject()) {
      throw ApiException.badRequest("the patch did not produce an object");
    }
    return (ObjectNode) n;
  }
}
