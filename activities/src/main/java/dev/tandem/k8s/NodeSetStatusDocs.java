package dev.tandem.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.workflows.model.Condition;
import dev.tandem.workflows.model.NodeSetStatusView;
import dev.tandem.workflows.model.SlurmCounts;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

/** {@link NodeSetStatusView} to the JSON of the NodeSet's {@code status}, and back-comparison. */
public final class NodeSetStatusDocs {
  private NodeSetStatusDocs() {}

  /** The status fields Tandem owns; anything else under status is left alone. */
  static final List<String> FIELDS =
      List.of(
          "replicas",
          "readyReplicas",
          "updatedReplicas",
          "slurm",
          "currentRevision",
          "updateRevision",
          "observedGeneration",
          "selector",
          "conditions");

  /** Kubernetes' limit on a condition message (metav1.Condition). */
  static final int MAX_MESSAGE = 32768;

  /**
   * The status Tandem wants. Fields Tandem owns but has no value for are JSON null (see {@link
   * #merged}). A condition keeps its stored {@code lastTransitionTime} while its status stays the
   * same (the Kubernetes convention), so rewriting an unchanged status changes nothing.
   */
  public static ObjectNode toJson(NodeSetStatusView v, JsonNode current, Instant now) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode o = f.objectNode();
    o.put("replicas", v.replicas());
    o.put("readyReplicas", v.readyReplicas());
    o.put("updatedReplicas", v.updatedReplicas());
    SlurmCounts s = v.slurm();
    if (s == null) {
      o.putNull("slurm");
    } else {
      ObjectNode so = o.putObject("slurm");
      so.put("idle", s.idle());
      so.put("allocated", s.allocated());
      so.put("draining", s.draining());
      so.put("drained", s.drained());
      so.put("down", s.down());
    }
    putText(o, "currentRevision", v.currentRevision());
    putText(o, "updateRevision", v.updateRevision());
    o.put("observedGeneration", v.observedGeneration());
    putText(o, "selector", v.selector());
    ArrayNode conds = o.putArray("conditions");
    JsonNode stored = current == null ? null : current.get("conditions");
    for (Condition c : v.conditions()) {
      ObjectNode co = conds.addObject();
      co.put("type", c.type());
      co.put("status", c.status() == null ? "Unknown" : c.status());
      if (c.reason() != null) {
        co.put("reason", c.reason());
      }
      if (c.message() != null) {
        String m = c.message();
        co.put("message", m.length() <= MAX_MESSAGE ? m : m.substring(0, MAX_MESSAGE));
      }
      co.put("lastTransitionTime", transitionTime(c, stored, now));
    }
    return o;
  }

  /** Whether {@code current} already says what {@code desired} says (Tandem's fields only). */
  public static boolean same(JsonNode current, ObjectNode desired) {
    return Revisions.canonicalString(owned(current))
        .equals(Revisions.canonicalString(owned(desired)));
  }

  /**
   * The whole status object to store: fields others wrote are kept, Tandem's are replaced, and
   * Tandem's null fields are dropped.
   */
  public static ObjectNode merged(JsonNode current, ObjectNode desired) {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    if (current != null && current.isObject()) {
      for (Map.Entry<String, JsonNode> e : current.properties()) {
        if (!FIELDS.contains(e.getKey())) {
          out.set(e.getKey(), e.getValue());
        }
      }
    }
    for (Map.Entry<String, JsonNode> e : desired.properties()) {
      if (!e.getValue().isNull()) {
        out.set(e.getKey(), e.getValue());
      }
    }
    return out;
  }

  private static ObjectNode owned(JsonNode status) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    if (status != null && status.isObject()) {
      for (String f : FIELDS) {
        JsonNode v = status.get(f);
        if (v != null) {
          o.set(f, v);
        }
      }
    }
    return o;
  }

  private static String transitionTime(Condition c, JsonNode stored, Instant now) {
    if (stored != null && stored.isArray()) {
      for (JsonNode s : stored) {
        if (c.type().equals(s.path("type").asText())
            && s.path("status").asText().equals(c.status())
            && s.hasNonNull("lastTransitionTime")) {
          return s.get("lastTransitionTime").asText();
        }
      }
    }
    Instant t = c.lastTransitionTime() == null ? now : c.lastTransitionTime();
    return t.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  private static void putText(ObjectNode o, String field, String value) {
    if (value == null) {
      o.putNull(field);
    } else {
      o.put(field, value);
    }
  }
}
