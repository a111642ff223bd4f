package dev.tandem.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.workflows.model.SlurmSettings;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;

/**
 * Pod revisions: the first {@link #LENGTH} hex characters of the SHA-256 of the canonical JSON of
 * {@code {"slurm": <settings>, "template": <pod template>}}.
 *
 * <p>Canonical JSON sorts object keys and drops {@code null} members and empty arrays (Kubernetes
 * treats both as "not set", and a typed client may or may not write them), so equal templates give
 * equal revisions whatever the key order or the client that wrote them. Empty objects are kept:
 * {@code emptyDir: {}} means something. Changing this definition changes every revision and would
 * roll every node of every NodeSet: don't, or do it with a migration.
 */
public final class Revisions {
  private Revisions() {}

  /** Hex characters kept: 40 bits, so a collision among a NodeSet's few revisions is negligible. */
  public static final int LENGTH = 10;

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** The revision of a pod template (as canonicalized by {@link #canonical}) and its settings. */
  public static String of(JsonNode template, SlurmSettings slurm) {
    ObjectNode doc = JsonNodeFactory.instance.objectNode();
    doc.set("slurm", settingsNode(slurm));
    doc.set("template", template == null ? JsonNodeFactory.instance.nullNode() : template);
    return hash(canonicalString(doc));
  }

  /** Sorted keys, no null members, no empty arrays; arrays keep their order. */
  public static JsonNode canonical(JsonNode n) {
    if (n == null) {
      return JsonNodeFactory.instance.nullNode();
    }
    if (n.isObject()) {
      List<String> names = new ArrayList<>();
      n.fieldNames().forEachRemaining(names::add);
      Collections.sort(names);
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      for (String name : names) {
        JsonNode v = n.get(name);
        if (v == null || v.isNull() || (v.isArray() && v.isEmpty())) {
          continue;
        }
        out.set(name, canonical(v));
      }
      return out;
    }
    if (n.isArray()) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      n.forEach(e -> out.add(canonical(e)));
      return out;
    }
    return n;
  }

  /** Compact canonical JSON text. */
  public static String canonicalString(JsonNode n) {
    try {
      return MAPPER.writeValueAsString(canonical(n));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON tree", e);
    }
  }

  static String hash(String text) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d).substring(0, LENGTH);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  private static ObjectNode settingsNode(SlurmSettings s) {
    SlurmSettings v = s == null ? SlurmSettings.none() : s;
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    ArrayNode p = o.putArray("partitions");
    v.partitions().forEach(p::add);
    ArrayNode f = o.putArray("features");
    v.features().forEach(f::add);
    if (v.gres() != null) {
      o.put("gres", v.gres());
    }
    if (v.weight() != null) {
      o.put("weight", v.weight());
    }
    return o;
  }
}
