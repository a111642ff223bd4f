package dev.tandem.devstack.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * Server-side printing ({@code Accept: ...;as=Table}) so that {@code kubectl get} shows the usual
 * columns: pods (READY, STATUS, RESTARTS, AGE, IP, NODE), nodes (STATUS incl. SchedulingDisabled,
 * ROLES, AGE, VERSION), namespaces, core events (LAST SEEN, TYPE, REASON, OBJECT, MESSAGE; with
 * {@code -o wide} also SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME, as a real API server prints
 * them), custom resources (their additionalPrinterColumns); other kinds get NAME and CREATED AT
 * like a server without printers.
 */
final class Tables {
  private Tables() {}

  static boolean wanted(String accept) {
    return accept != null && accept.contains("as=Table");
  }

  private record Col(String name, String type, String format, int priority) {}

  static ObjectNode table(ResourceType t, List<ObjectNode> objs, long rv, String cont) {
    List<Col> cols = columns(t);
    ObjectNode table = Json.object();
    table.put("kind", "Table");
    table.put("apiVersion", "meta.k8s.io/v1");
    ObjectNode meta = table.putObject("metadata").put("resourceVersion", String.valueOf(rv));
    if (cont != null) {
      meta.put("continue", cont);
    }
    ArrayNode defs = table.putArray("columnDefinitions");
    for (Col c : cols) {
      defs.addObject()
          .put("name", c.name())
          .put("type", c.type())
          .put("format", c.format())
          .put("description", c.name())
          .put("priority", c.priority());
    }
    ArrayNode rows = table.putArray("rows");
    for (ObjectNode o : objs) {
      ObjectNode row = rows.addObject();
      ArrayNode cells = row.putArray("cells");
      cells(t, o).forEach(cells::add);
      ObjectNode partial = row.putObject("object");
      partial.put("kind", "PartialObjectMetadata").put("apiVersion", "meta.k8s.io/v1");
      partial.set("metadata", Json.meta(o));
    }
    return table;
  }

  private static List<Col> columns(ResourceType t) {
    Col name = new Col("Name", "string", "name", 0);
    Col age = new Col("Age", "string", "", 0);
    if (t.custom()) {
      List<Col> cols = new ArrayList<>(List.of(name));
      if (t.columns().isEmpty()) {
        cols.add(age);
      }
      t.columns().forEach(c -> cols.add(new Col(c.name(), "string", c.format(), c.priority())));
      return cols;
    }
    return switch (t.group().isEmpty() ? t.kind() : "") {
      case "Pod" ->
          List.of(
              name,
              new Col("Ready", "string", "", 0),
              new Col("Status", "string", "", 0),
              new Col("Restarts", "string", "", 0),
              age,
              new Col("IP", "string", "", 1),
              new Col("Node", "string", "", 1));
      case "Node" ->
          List.of(
              name,
              new Col("Status", "string", "", 0),
              new Col("Roles", "string", "", 0),
              age,
              new Col("Version", "string", "", 0),
              new Col("Internal-IP", "string", "", 1));
      case "Namespace" -> List.of(name, new Col("Status", "string", "", 0), age);
      case "Event" ->
          List.of(
              new Col("Last Seen", "string", "", 0),
              new Col("Type", "string", "", 0),
              new Col("Reason", "string", "", 0),
              new Col("Object", "string", "", 0),
              new Col("Subobject", "string", "", 1),
              new Col("Source", "string", "", 1),
              new Col("Message", "string", "", 0),
              new Col("First Seen", "string", "", 1),
              new Col("Count", "string", "", 1),
              new Col("Name", "string", "name", 1));
      default -> List.of(name, new Col("Created At", "date", "", 0));
    };
  }

  private static List<String> cells(ResourceType t, ObjectNode o) {
    String name = Json.text(o, "metadata", "name");
    String age = age(Json.text(o, "metadata", "creationTimestamp"));
    if (t.custom()) {
      List<String> out = new ArrayList<>(List.of(name));
      if (t.columns().isEmpty()) {
        out.add(age);
      }
      for (ResourceType.PrinterColumn c : t.columns()) {
        JsonNode v = JsonPathLite.eval(o, c.jsonPath());
        out.add(v == null ? "<none>" : "date".equals(c.type()) ? age(v.asText()) : v.asText());
      }
      return out;
    }
    return switch (t.group().isEmpty() ? t.kind() : "") {
      case "Pod" -> podCells(o, name, age);
      case "Node" -> nodeCells(o, name, age);
      case "Namespace" -> List.of(name, String.valueOf(Json.text(o, "status", "phase")), age);
      case "Event" -> eventCells(o, name);
      default -> List.of(name, String.valueOf(Json.text(o, "metadata", "creationTimestamp")));
    };
  }

  /**
   * A core event's row: when it was last and first seen (lastTimestamp, else eventTime, else its
   * creation), the object as {@code kind/name} in lower case, the source as {@code component,
   * host}, and the count (1 when unset).
   */
  private static List<String> eventCells(ObjectNode o, String name) {
    String created = Json.text(o, "metadata", "creationTimestamp");
    String eventTime = Json.text(o, "eventTime");
    String first = firstNonNull(Json.text(o, "firstTimestamp"), eventTime, created);
    String last = firstNonNull(Json.text(o, "lastTimestamp"), eventTime, first);
    String kind = Json.text(o, "involvedObject", "kind");
    String object =
        (kind == null ? "" : kind.toLowerCase(java.util.Locale.ROOT) + "/")
            + String.valueOf(Json.text(o, "involvedObject", "name"));
    String component =
        firstNonNull(Json.text(o, "source", "component"), Json.text(o, "reportingComponent"), "");
    String host = Json.text(o, "source", "host");
    long count = o.path("count").asLong(0);
    return List.of(
        age(last),
        String.valueOf(Json.text(o, "type")),
        String.valueOf(Json.text(o, "reason")),
        object,
        firstNonNull(Json.text(o, "involvedObject", "fieldPath"), ""),
        host == null || host.isEmpty() ? component : component + ", " + host,
        firstNonNull(Json.text(o, "message"), ""),
        age(first),
        String.valueOf(count > 0 ? count : 1),
        name);
  }

  private static String firstNonNull(String... values) {
    for (String v : values) {
      if (v != null) {
        return v;
      }
    }
    return null;
  }

  private static List<String> podCells(ObjectNode o, String name, String age) {
    int total = o.path("spec").path("containers").size();
    int ready = 0;
    long restarts = 0;
    String status = Json.text(o, "status", "phase");
    for (JsonNode cs : o.path("status").path("containerStatuses")) {
      if (cs.path("ready").asBoolean(false)) {
        ready++;
      }
      restarts += cs.path("restartCount").asLong(0);
      String waiting = Json.text(cs, "state", "waiting", "reason");
      String terminated = Json.text(cs, "state", "terminated", "reason");
      if (waiting != null) {
        status = waiting;
      } else if (terminated != null && !"Running".equals(status)) {
        status = terminated;
      }
    }
    if (Json.text(o, "status", "reason") != null) {
      status = Json.text(o, "status", "reason");
    }
    if (Json.text(o, "metadata", "deletionTimestamp") != null) {
      status = "Terminating";
    }
    String ip = Json.text(o, "status", "podIP");
    String node = Json.text(o, "spec", "nodeName");
    return List.of(
        name,
        ready + "/" + total,
        status == null ? "Unknown" : status,
        String.valueOf(restarts),
        age,
        ip == null ? "<none>" : ip,
        node == null ? "<none>" : node);
  }

  private static List<String> nodeCells(ObjectNode o, String name, String age) {
    String status = "Unknown";
    for (JsonNode c : o.path("status").path("conditions")) {
      if ("Ready".equals(c.path("type").asText())) {
        status =
            switch (c.path("status").asText()) {
              case "True" -> "Ready";
              case "False" -> "NotReady";
              default -> "Unknown";
            };
      }
    }
    if (o.path("spec").path("unschedulable").asBoolean(false)) {
      status += ",SchedulingDisabled";
    }
    List<String> roles = new ArrayList<>();
    JsonNode labels = Json.at(o, "metadata", "labels");
    if (labels != null) {
      labels
          .fieldNames()
          .forEachRemaining(
              k -> {
                if (k.startsWith("node-role.kubernetes.io/")) {
                  roles.add(k.substring("node-role.kubernetes.io/".length()));
                }
              });
    }
    String ip = "<none>";
    for (JsonNode a : o.path("status").path("addresses")) {
      if ("InternalIP".equals(a.path("type").asText())) {
        ip = a.path("address").asText();
      }
    }
    String version = Json.text(o, "status", "nodeInfo", "kubeletVersion");
    return List.of(
        name,
        status,
        roles.isEmpty() ? "<none>" : String.join(",", roles),
        age,
        version == null ? "" : version,
        ip);
  }

  /** kubectl's short human duration: 45s, 5m, 3h, 2d4h, 12d. */
  static String age(String timestamp) {
    if (timestamp == null) {
      return "<unknown>";
    }
    Duration d;
    try {
      d = Duration.between(Instant.parse(timestamp), Instant.now());
    } catch (DateTimeParseException e) {
      return "<invalid>";
    }
    long s = Math.max(0, d.getSeconds());
    if (s < 120) {
      return s + "s";
    }
    long m = s / 60;
    if (m < 10) {
      return m + "m" + (s % 60 == 0 ? "" : (s % 60) + "s");
    }
    if (m < 180) {
      return m + "m";
    }
    long h = m / 60;
    if (h < 8) {
      return h + "h" + (m % 60 == 0 ? "" : (m % 60) + "m");
    }
    if (h < 48) {
      return h + "h";
    }
    long days = h / 24;
    if (days < 8) {
      return days + "d" + (h % 24 == 0 ? "" : (h % 24) + "h");
    }
    return days + "d";
  }
}
