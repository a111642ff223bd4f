package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.devstack.api.Store.Stored;
import io.fabric8.mockwebserver.http.MockResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * GET of one object or a list: typed lists ({@code PodList}, {@code NodeSetList}) instead of the
 * mock's {@code kind: List}, selectors that really filter, pagination with {@code limit}/{@code
 * continue}, and server-side Tables for kubectl.
 */
final class Reads {
  private final Store store;

  Reads(Store store) {
    this.store = store;
  }

  MockResponse get(ResourceType t, ApiRequest req, String accept) {
    Stored s = store.require(t, req);
    if (Tables.wanted(accept)) {
      return Responses.json(200, Tables.table(t, List.of(s.obj()), store.currentRv(), null));
    }
    return Responses.json(200, s.obj());
  }

  MockResponse list(ResourceType t, ApiRequest req, String accept) {
    LabelSelector labels = LabelSelector.parse(req.param("labelSelector"));
    FieldSelector fields = FieldSelector.parse(req.param("fieldSelector"), t);
    String start = decodeContinue(req.param("continue"));
    long limit = parseLimit(req.param("limit"));
    // A metadata.name term (a pod's own LIST, as the scheduler's binder makes per bind) pins the
    // candidates to one per namespace: a lookup each instead of a walk over every object.
    String name = fields.pinnedName();
    List<Stored> candidates =
        name != null ? store.named(t, req.namespace, name) : store.list(t, req.namespace);
    List<ObjectNode> matching = new ArrayList<>();
    for (Stored s : candidates) {
      if (start != null && key(s).compareTo(start) <= 0) {
        continue;
      }
      if (labels.matches(s.obj()) && fields.matches(s.obj())) {
        matching.add(s.obj());
      }
    }
    String next = null;
    long remaining = 0;
    if (limit > 0 && matching.size() > limit) {
      remaining = matching.size() - limit;
      matching = matching.subList(0, (int) limit);
      next = encodeContinue(key(matching.get(matching.size() - 1)));
    }
    long rv = store.currentRv();
    if (Tables.wanted(accept)) {
      return Responses.json(200, Tables.table(t, matching, rv, next));
    }
    ObjectNode list = Json.object();
    list.put("kind", t.listKind());
    list.put("apiVersion", t.apiVersion());
    ObjectNode meta = list.putObject("metadata");
    meta.put("resourceVersion", String.valueOf(rv));
    if (next != null) {
      meta.put("continue", next);
      meta.put("remainingItemCount", remaining);
    }
    ArrayNode items = list.putArray("items");
    matching.forEach(items::add);
    return Responses.json(200, list);
  }

  private static String key(Stored s) {
    return (s.namespace() == null ? "" : s.namespace()) + "/" + s.name();
  }

  private static String key(JsonNode obj) {
    String ns = Json.text(obj, "metadata", "namespace");
    return (ns == null ? "" : ns) + "/" + Json.text(obj, "metadata", "name");
  }

  private static long parseLimit(String s) {
    if (s == null || s.isEmpty()) {
      return 0;
    }
    try {
      return Math.max(0, Long.parseLong(s));
    } catch (NumberFormatException e) {
      throw ApiException.badRequest("limit: Invalid value: " + Json.quote(s));
    }
  }

  /** An opaque token: the key the next page starts after. */
  private static String encodeContinue(String lastKey) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(("v1:" + lastKey).getBytes(StandardCharsets.UTF_8));
  }

  private static String decodeContinue(String token) {
    if (token == null || token.isEmpty()) {
      return null;
    }
    try {
      String s = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      if (s.startsWith("v1:")) {
        return s.substring(3);
      }
    } catch (IllegalArgumentException e) {
      // fall through
    }
    throw ApiException.badRequest("continue key is not valid: " + Json.quote(token));
  }
}
